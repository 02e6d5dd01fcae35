// gpusched gen kernelet-mix: seed 000's workloads (Table 5): instances of the CI, MI, MIX or ALL applications
// submitted with Poisson arrivals (exponential inter-arrival times, every application with the same rate),
// written as a workload over the Kernelet traces of one GPU.
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "core/atomic_file.h"
#include "core/gpu_file.h"
#include "core/profile_io.h"
#include "core/random.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"
#include "sim/runner.h"

namespace gpusched::cli {

namespace {
const std::map<std::string, std::vector<std::string>>& mixes() {
  static const std::map<std::string, std::vector<std::string>> m{
      {"CI", {"bs", "mm", "tea", "mriq"}},
      {"MI", {"pc", "spmv", "st", "sad"}},
      {"MIX", {"pc", "bs", "tea", "sad"}},
      {"ALL", {"pc", "spmv", "st", "bs", "mm", "tea", "mriq", "sad"}},
  };
  return m;
}

// The live suite's kernels standing for the paper's applications (traces/README.md, the Kernelet traces' row).
const std::map<std::string, std::string>& suite_names() {
  static const std::map<std::string, std::string> m{
      {"pc", "gather"}, {"sad", "sad"},   {"spmv", "spmv"},       {"st", "stencil"},
      {"mm", "sgemm"},  {"mriq", "mriq"}, {"bs", "blackscholes"}, {"tea", "xtea"},
  };
  return m;
}
}  // namespace

void add_gen_kernelet_command(CLI::App& gen) {
  auto* cmd =
      gen.add_subcommand("kernelet-mix", "Seed 000's Table 5 workloads: Poisson arrivals of CI/MI/MIX/ALL kernels");
  struct Args {
    std::string mix = "ALL", traces, out, live_size;
    int instances = 1000;
    double load = 2.0;
    std::uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--mix", a->mix, "CI, MI, MIX or ALL")->check(CLI::IsMember({"CI", "MI", "MIX", "ALL"}));
  cmd->add_option("--traces", a->traces, "Folder of the Kernelet kernel profiles (traces/kernelet/c2050 or gtx680)")
      ->required();
  cmd->add_option("--instances", a->instances, "Kernel instances in the workload")->check(CLI::Range(1, 1000000));
  cmd->add_option("--load", a->load,
                  "Offered load: mean time alone of the mix's kernels / mean inter-arrival time (> 1 keeps at least "
                  "two kernels pending, as the paper assumes)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", a->seed, "Seed for the arrivals and the application of each instance");
  cmd->add_option("--live-size", a->live_size,
                  "Take the live suite's recordings of this size instead (s1 or s2; --traces traces/live/h100): "
                  "PC = gather, SAD = sad, SPMV = spmv, ST = stencil, MM = sgemm, MRIQ = mriq, BS = blackscholes, "
                  "TEA = xtea")
      ->check(CLI::IsMember({"s1", "s2"}));
  cmd->add_option("--out", a->out, "Output workload file")->required();
  cmd->callback([a] {
    namespace fs = std::filesystem;
    Warnings warnings;
    std::vector<std::shared_ptr<const KernelProfile>> kernels;
    std::vector<std::string> paths;
    for (const auto& name : mixes().at(a->mix)) {
      const std::string file = a->live_size.empty() ? name : suite_names().at(name) + "-" + a->live_size;
      const std::string path = (fs::path(a->traces) / (file + ".kernel.toml")).string();
      kernels.push_back(std::make_shared<KernelProfile>(read_kernel_profile(path, &warnings)));
      paths.push_back(fs::relative(fs::absolute(path), fs::absolute(a->out).parent_path()).generic_string());
    }
    print_warnings(warnings);
    if (kernels.front()->gpu.empty()) throw std::invalid_argument("kernel profiles name no GPU: " + paths.front());
    const GpuSpec gpu = resolve_gpu(kernels.front()->gpu, &warnings);
    sim::AloneTimeCache alone;
    double mean_alone = 0;
    for (const auto& k : kernels) mean_alone += static_cast<double>(alone.get(*k, 0, gpu, 1, "none", {}).time);
    mean_alone /= static_cast<double>(kernels.size());
    const double mean_gap = mean_alone / a->load;
    Rng rng(a->seed);
    std::vector<Launch> launches;
    double t = 0;
    for (int i = 0; i < a->instances; ++i) {
      Launch l;
      l.kernel = static_cast<std::size_t>(bounded(rng.next(), kernels.size()));
      l.id = fmt::format("{}-{}", kernels[l.kernel]->name, i);
      l.tenant = l.id;
      l.arrival = static_cast<TimeNs>(std::llround(t));
      launches.push_back(std::move(l));
      t += rng.exponential(mean_gap);
    }
    Workload w = make_workload(fmt::format("kernelet-{}-{}-n{}-s{}", a->mix, gpu.name, a->instances, a->seed), kernels,
                               std::move(launches));
    w.gpu = gpu.name;
    if (const auto dir = fs::path(a->out).parent_path(); !dir.empty()) fs::create_directories(dir);
    AtomicFile f(a->out);
    f.write(fmt::format("# gpusched gen kernelet-mix --mix {} --traces {} --instances {} --load {} --seed {}\n", a->mix,
                        a->traces, a->instances, a->load, a->seed));
    f.write(workload_file_text(w, paths));
    f.commit();
    fmt::print("wrote {}: {} instances of {} ({} kernels), mean inter-arrival {:.1f} us, {} blocks\n", a->out,
               a->instances, a->mix, kernels.size(), mean_gap / 1000.0, w.total_blocks());
  });
}

}  // namespace gpusched::cli
