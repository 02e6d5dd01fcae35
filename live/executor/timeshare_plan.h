// From a time-sharing plan (the timeshare policy's Schedule: block pieces and the kernel control blocks' phases) to
// the steps the GPU carries out (docs/validation.md, "Time-sharing on the GPU"): each Running phase becomes a
// micro-kernel (a launch of the contiguous range of the launch's blocks the plan ran in it), each RestoreState a
// copy of the launch's state from pinned host memory to the GPU, each SaveState a copy of its written state back.
// Plain C++, no CUDA: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

#include "core/schedule.h"

namespace gpusched::live {

enum class TimeshareStepKind { Restore, MicroKernel, Save };

struct TimeshareStep {
  TimeshareStepKind kind = TimeshareStepKind::MicroKernel;
  std::int32_t launch = 0;
  std::int64_t first_block = 0;  // micro-kernel: its blocks are [first_block, first_block + blocks)
  std::int64_t blocks = 0;
  TimeNs planned_start = 0, planned_end = 0;
};

// True when the plan is time-shared: the policy set Running phases (its blocks run only inside them).
bool is_time_shared(const Schedule& plan);

// The steps in planned start order (ties: saves, then restores, then micro-kernels, then by launch). Throws
// std::invalid_argument when a phase or piece is on a GPU other than the first (the executor drives one GPU), a piece
// lies in no Running phase of its launch, or a Running phase's blocks are not one contiguous range.
std::vector<TimeshareStep> build_timeshare_steps(const Schedule& plan, std::size_t launches);

// The measured counterpart of the plan's phases, from each step's measured [start, end) (same order as the steps)
// and each launch's release: Wait from the release (and from each save's end) until its next step; RestoreState (the
// copy); ReadyToLaunch from a restore's end until the micro-kernel that follows it; Running; SaveState from the end of
// the micro-kernel before it (as the policy sets it: queued for the link, then copying) to the copy's end. In the
// order they ended, as Schedule::phases.
std::vector<PhaseSpan> measured_phases(const std::vector<TimeshareStep>& steps,
                                       const std::vector<std::pair<TimeNs, TimeNs>>& measured,
                                       const std::vector<TimeNs>& release);

}  // namespace gpusched::live
