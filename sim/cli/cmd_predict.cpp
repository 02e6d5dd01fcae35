// gpusched predict: runs a workload under a policy, replays the Schedule through the Simple Slicing
// predictor and reports predicted against actual runtimes (seed 001, Figure 11).
#include <fmt/format.h>

#include <algorithm>

#include "core/gpu_file.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"
#include "sim/prediction_replay.h"
#include "sim/runner.h"

namespace gpusched::cli {
namespace {

std::string quartiles(std::vector<double> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)]; };
  return fmt::format("min {:.2f}  q1 {:.2f}  median {:.2f}  q3 {:.2f}  max {:.2f}", v.front(), at(0.25), at(0.5),
                     at(0.75), v.back());
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("predict", "Replay a policy's Schedule through the Simple Slicing predictor and "
                                            "compare predicted with actual runtimes");
  auto workload = std::make_shared<std::string>();
  auto policy = std::make_shared<std::string>("fifo");
  auto gpu_name = std::make_shared<std::string>();
  auto seed = std::make_shared<std::uint64_t>(1);
  cmd->add_option("--workload,-w", *workload, "Workload file")->required();
  cmd->add_option("--policy,-p", *policy, "Policy whose Schedule is replayed");
  cmd->add_option("--gpu", *gpu_name, "GPU preset or file (default: the workload's)");
  cmd->add_option("--seed", *seed, "Seed");
  cmd->callback([=] {
    const auto loaded = load_workload_and_gpu(*workload, *gpu_name);
    const Workload& w = loaded.workload;
    const GpuSpec& gpu = loaded.gpu;
    sim::AloneTimeCache alone;
    sim::RunOptions o;
    o.policy = *policy;
    o.seed = *seed;
    const auto run = sim::run_workload(w, gpu, o, alone);
    const auto predictions = sim::replay_predictions(w, gpu, run);
    fmt::print("workload {} under {} on {}: predicted / actual runtime per launch\n", w.name, *policy, gpu.name);
    fmt::print("{:<16} {:<14} {:>13} {:>12} {:>12}\n", "launch", "kernel", "actual", "first pred.", "last slice");
    std::vector<double> first, last;
    for (const auto& p : predictions) {
      const auto& l = w.launches[p.launch];
      if (!p.has_prediction) {
        fmt::print("{:<16} {:<14} {:>13} {:>12} {:>12}\n", l.id, w.kernels[l.kernel]->name, format_duration(p.actual), "-",
                   "-");
        continue;
      }
      first.push_back(p.first_ratio);
      last.push_back(p.last_slice_ratio);
      fmt::print("{:<16} {:<14} {:>13} {:>11.3f}x {:>11.3f}x\n", l.id, w.kernels[l.kernel]->name,
                 format_duration(p.actual), p.first_ratio, p.last_slice_ratio);
    }
    fmt::print("first prediction / actual:            {}\n", quartiles(first));
    fmt::print("last slice's first prediction / actual: {}\n", quartiles(last));
  });
}

}  // namespace gpusched::cli
