// `gpusched-live validate --entries-csv`: every worker of a plan carried out in parts of pieces as it left its stamps
// (docs/validation.md, "Entries stamped before their claims"), one CSV row each beside the plan's piece it carried out
// and the host's call of its part. Plain C++: the rows are built and tested without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.h"
#include "live/executor/exec_types.h"

namespace gpusched::live {

// A time a worker did not stamp (a part without claims stamps no entry: its worker's start is its entry; a record of
// an entry never taken).
constexpr std::int64_t kNotStamped = -1;

// One entry of a launch's queue of pieces, as read back after the run; times in ns from the execution's origin.
struct PieceEntry {
  std::int32_t launch = 0, part = 0, entry = 0, block = 0;
  std::size_t plan_piece = 0;          // the plan's piece it carried out (index into the plan's pieces)
  std::int64_t entered = kNotStamped;  // the worker began, before its claim (ExecQueues::entered)
  std::int64_t start = kNotStamped;    // the piece began, after the claim (ExecRecord::start_ns)
  std::int64_t end = kNotStamped;
  std::uint32_t sm = 0;
  ExecOutcome outcome = ExecOutcome::None;
};

// How an executed piece ended, as a Schedule says it (None and Skipped, which no Schedule holds, as Completed).
PieceOutcome executed_outcome(ExecOutcome o);
// The Schedule's name of executed_outcome, or "none" and "skipped".
std::string_view to_string(ExecOutcome o);

inline constexpr std::string_view kEntriesCsvHeader =
    "execution,launch,part,entry,block,sm,planned_outcome,outcome,planned_start_us,planned_end_us,part_called_us,"
    "entered_us,start_us,end_us";

// The rows (no header) of one execution, labelled `execution`: launch ids from `launch_ids`, the planned piece's
// outcome and times from `plan`, the part's call from `part_called` (per launch, per part, ns from t = 0; empty where
// the host called none), times in us with three decimals, empty where not stamped. Throws std::out_of_range where an
// entry names a launch, part or planned piece that is not there.
std::vector<std::string> entry_csv_rows(std::string_view execution, const std::vector<std::string>& launch_ids,
                                        const Schedule& plan, const std::vector<PieceEntry>& entries,
                                        const std::vector<std::vector<TimeNs>>& part_called);

}  // namespace gpusched::live
