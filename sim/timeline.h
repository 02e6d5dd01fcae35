// Timeline exports of a Schedule: CSV (one row per block piece) and Chrome/Perfetto trace JSON (one
// track per SM residency slot, a counter per SM for occupancy). Files are written atomically.
#pragma once
#include <memory>
#include <string>

#include "core/atomic_file.h"
#include "core/gpu_spec.h"
#include "core/schedule.h"
#include "core/workload.h"
#include "sim/engine.h"

namespace gpusched::sim {

// "launch,kernel,block,gpu,sm,start_ns,end_ns,outcome"
std::string schedule_csv_header();
void write_schedule_csv(const std::string& path, const Schedule& s, const Workload& w);
void write_perfetto_json(const std::string& path, const Schedule& s, const Workload& w, const GpuSpec& gpu);
// Launch phases (time-sharing states) as CSV: "launch,gpu,state,start_ns,end_ns".
void write_phases_csv(const std::string& path, const Schedule& s, const Workload& w);
// Where write_timeline puts the phases beside a Schedule CSV: x.csv -> x.phases.csv.
std::string phases_csv_path(const std::string& schedule_csv);
// Picks the format by extension: .json is Perfetto (phases included), anything else CSV (and, when the run
// has phases, a second CSV of them).
void write_timeline(const std::string& path, const Schedule& s, const Workload& w, const GpuSpec& gpu);

// Streaming mode: writes each piece as the engine emits it instead of keeping the Schedule.
class CsvScheduleStream final : public EngineObserver {
 public:
  CsvScheduleStream(const std::string& path, const Workload& w);
  void on_piece(const BlockPiece& p) override;
  void commit();  // flushes and renames into place; without it the partial file is removed

 private:
  AtomicFile file_;
  const Workload& workload_;
  std::string buffer_;
};

}  // namespace gpusched::sim
