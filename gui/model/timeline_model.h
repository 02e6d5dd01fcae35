// The timeline of one run as plain data (no Qt types; DESIGN, "Models to learn from": KDAB hotspot): one lane
// per SM grouped by GPU, each lane split into residency slots so that a slot's bars never overlap and stay
// sorted by start (a binary search finds the first visible one), the busy-SM and resident-block curves per GPU,
// and each launch's arrival and finish. Built once from a Schedule; drawing only reads it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.h"
#include "core/time.h"

namespace gpusched::gui {

struct TimelineBar {
  TimeNs start = 0;
  TimeNs end = 0;
  std::int32_t launch = 0;
  std::int32_t block = 0;
  PieceOutcome outcome = PieceOutcome::Completed;
};

// A coarser copy of a slot's bars for zoomed-out views (level of detail, as image mipmaps): neighbouring bars of
// one launch that are each narrower than three pixels at `min_ns_per_px` and less than a pixel apart are
// merged into one run, which is what drawing would do with them at that zoom or further out. Drawing picks the
// coarsest level its zoom allows, so the whole run of a million blocks is drawn from a few thousand runs.
struct TimelineLevel {
  double min_ns_per_px = 0;
  std::vector<TimelineBar> runs;         // launch and extent of each run (block: of its first bar)
  std::vector<std::uint32_t> first_bar;  // index of each run's first bar in the row, plus the row's size at the end
};

// One residency slot of an SM: bars in start order, none overlapping (so ends are sorted too).
struct TimelineRow {
  std::vector<TimelineBar> bars;
  std::vector<std::uint32_t> marks;   // indices of bars whose outcome is not Completed (preemption markers)
  std::vector<TimelineLevel> levels;  // coarser and coarser; empty for short rows
};

struct TimelineLane {
  int gpu = 0;
  int sm = 0;
  std::vector<TimelineRow> slots;  // at least one, even for an idle SM
};

// Step curves of one GPU: at times[i] the values become busy_sms[i] and resident[i].
struct GpuOccupancy {
  int gpu = 0;
  int sms = 0;
  int peak_resident = 0;
  std::vector<TimeNs> times;
  std::vector<std::int32_t> busy_sms;  // SMs with at least one resident block
  std::vector<std::int32_t> resident;  // resident blocks on the GPU
};

struct TimelineLaunch {
  std::string id;
  std::string kernel;
  std::string tenant;
  TimeNs arrival = 0;
  TimeNs finish = -1;  // -1: never finished (killed or cut short)
  std::int64_t blocks = 0;
  bool killed = false;
};

class TimelineModel {
 public:
  TimelineModel() = default;
  // `sms_per_gpu`: the SM count of each GPU the run used (lanes for idle SMs too); SMs or GPUs the Schedule
  // names beyond these are added.
  TimelineModel(const Schedule& schedule, std::vector<TimelineLaunch> launches, std::vector<int> sms_per_gpu);

  const std::vector<TimelineLane>& lanes() const { return lanes_; }
  const std::vector<GpuOccupancy>& occupancy() const { return occupancy_; }
  const std::vector<TimelineLaunch>& launches() const { return launches_; }
  int gpu_count() const { return static_cast<int>(occupancy_.size()); }
  // Lanes [first_lane(g), first_lane(g + 1)) belong to GPU g.
  int first_lane(int gpu) const { return lane_offsets_.at(static_cast<std::size_t>(gpu)); }
  std::int64_t piece_count() const { return pieces_; }
  bool empty() const { return pieces_ == 0; }
  // The extent of everything drawn: first arrival or piece start to last finish or piece end.
  TimeNs begin() const { return begin_; }
  TimeNs end() const { return end_; }

  // The bar of slot `slot` of lane `lane` that contains time t, else the nearest one within `tolerance_ns`;
  // nullptr when none.
  const TimelineBar* bar_at(int lane, int slot, double t, double tolerance_ns) const;

 private:
  std::vector<TimelineLane> lanes_;
  std::vector<int> lane_offsets_;
  std::vector<GpuOccupancy> occupancy_;
  std::vector<TimelineLaunch> launches_;
  std::int64_t pieces_ = 0;
  TimeNs begin_ = 0, end_ = 0;
};

}  // namespace gpusched::gui
