// Helpers shared by the tests: kernels and workloads built in code, running policies, invariant checks.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/run_result.h"
#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::test {

// A kernel whose block b runs for durations[b % durations.size()] ns (every block recorded).
std::shared_ptr<KernelProfile> kernel(const std::string& name, int blocks, int threads, std::vector<TimeNs> durations,
                                      int registers = 0, int smem = 0, double idempotent_until = 1.0,
                                      std::int64_t context_bytes = 0);

// Adds a record set at `residency` where every block took `duration` (kept sorted by residency).
void add_record_set(KernelProfile& k, int residency, TimeNs duration);

Launch launch(const std::string& id, std::size_t kernel, TimeNs arrival, std::vector<std::size_t> after = {});

// A GPU derived from a preset with another SM count, its front-end timing zero.
GpuSpec gpu_with_sms(const std::string& preset, int sms);

RunResult run(const Workload& w, const GpuSpec& gpu, const std::string& policy, std::uint64_t seed = 1,
              int gpu_count = 1, std::map<std::string, std::string> params = {});

// Two one-block launches on one SM of an h100 (128 threads each: both fit): a-s1's block of `a_time` ns arrives at 0,
// b-s1's of `b_time` ns at 100, under fifo and the interference model `interference` with `params`.
RunResult run_pair(TimeNs a_time, TimeNs b_time, const std::string& interference,
                   std::map<std::string, std::string> params = {});

// Checks the engine invariants on a finished run; returns "" or the first violation.
std::string check_invariants(const Workload& w, const GpuSpec& gpu, const RunResult& r);

// A shipped workload (traces/workloads/NAME.toml) with its GPU, and its plan under `policy` (interference `none`
// unless given), as the tests of plan cuts and samples take them.
struct ShippedPlan {
  sim::LoadedWorkload loaded;
  RunResult plan;
};
ShippedPlan shipped_plan(const std::string& workload, const std::string& policy,
                         const std::string& interference = "none");

// A run of launches that finish at `finish` (the rest of each outcome default), for plans built by hand.
RunResult launches_finishing_at(const std::vector<TimeNs>& finish);
// A plan by hand: launches released at 0 finishing at `finish` (turnaround the same), with these pieces.
RunResult plan_of(const std::vector<TimeNs>& finish, std::vector<BlockPiece> pieces);

// The parts replays' two launches (tests/unit/test_parts_replay.cpp, test_piece_parts_replay.cpp): A, 4 blocks of
// 100 ns, and B, 2 blocks of 10 ns, both 1024 threads a block and released at 0, A first.
Workload a_and_b();

// A Schedule piece on GPU 0, for plans built by hand.
inline BlockPiece piece(TimeNs start, TimeNs end, int launch, int block, int sm,
                        PieceOutcome o = PieceOutcome::Completed) {
  return {start, end, launch, block, 0, static_cast<std::int16_t>(sm), o};
}

std::string read_file(const std::string& path);

// Runs the gpusched binary; returns the exit code and fills `output` with stdout+stderr.
int run_cli(const std::string& args, std::string& output);

}  // namespace gpusched::test
