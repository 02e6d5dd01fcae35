// gpusched gen pairs: every ordered two-program workload of a set of kernel profiles, as seed 001
// section 6.1.3 builds its 56 workloads from 8 ERCBench kernels: the second kernel arrives a random
// 0..N cycles after the first, or at a fraction of the first one's time alone (Table 6).
#include <fmt/format.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/gpu_file.h"
#include "core/profile_io.h"
#include "sim/cli/commands.h"
#include "sim/pairs.h"

namespace gpusched::cli {

void add_gen_pairs_command(CLI::App& gen) {
  auto* cmd = gen.add_subcommand("pairs", "Every ordered pair of the given kernels as a two-launch workload");
  auto kernels = std::make_shared<std::vector<std::string>>();
  auto gpu_name = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto offset_cycles = std::make_shared<int>(100);
  auto fraction = std::make_shared<double>(-1.0);
  auto seed = std::make_shared<std::uint64_t>(1);
  cmd->add_option("--kernels", *kernels, "Kernel profiles (.kernel.toml)")->required()->expected(2, 1 << 20);
  cmd->add_option("--gpu", *gpu_name, "GPU preset or file the workloads run on")->required();
  cmd->add_option("--offset-cycles", *offset_cycles, "Second arrival: uniform in [0, N] cycles (seed 001: 100)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--offset-fraction", *fraction,
                  "Second arrival at this fraction of the first kernel's time alone (Table 6: 0.25, 0.5)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--seed", *seed, "Seed for the arrival offsets");
  cmd->add_option("--out", *out, "Output folder")->required();
  cmd->callback([=] {
    namespace fs = std::filesystem;
    Warnings warnings;
    const GpuSpec gpu = resolve_gpu(*gpu_name, &warnings, {}, "--gpu");
    std::vector<std::shared_ptr<KernelProfile>> profiles;
    for (const auto& path : *kernels)
      profiles.push_back(std::make_shared<KernelProfile>(read_kernel_profile(path, &warnings)));
    print_warnings(warnings);
    fs::create_directories(*out);
    sim::AloneTimeCache alone;
    sim::PairOptions options;
    options.offset_cycles = *offset_cycles;
    options.offset_fraction = *fraction;
    options.seed = *seed;
    const std::vector<std::shared_ptr<const KernelProfile>> kernels_const(profiles.begin(), profiles.end());
    int written = 0;
    for (const auto& pair : sim::make_kernel_pairs(kernels_const, gpu, options, alone)) {
      const auto& ka = *profiles[pair.first];
      const auto& kb = *profiles[pair.second];
      const TimeNs second = pair.second_arrival;
      const auto rel = [&](const std::string& p) {
        return fs::relative(fs::absolute(p), fs::absolute(*out)).generic_string();
      };
      std::string text = fmt::format(
          "# gpusched gen pairs: {} then {} (second arrival {} ns)\nformat = \"gpusched-workload\"\nversion = 1\n"
          "name = \"{}+{}\"\ngpu = \"{}\"\n\n[kernels]\nfirst = \"{}\"\nsecond = \"{}\"\n\n"
          "[[launch]]\nid = \"{}\"\nkernel = \"first\"\narrival_ns = 0\n\n"
          "[[launch]]\nid = \"{}\"\nkernel = \"second\"\narrival_ns = {}\n",
          ka.name, kb.name, second, ka.name, kb.name, gpu.name, rel((*kernels)[pair.first]),
          rel((*kernels)[pair.second]), ka.name + "-1", kb.name + "-2", second);
      AtomicFile f((fs::path(*out) / fmt::format("{}+{}.toml", ka.name, kb.name)).string());
      f.write(text);
      f.commit();
      ++written;
    }
    fmt::print("wrote {} workloads to {}\n", written, *out);
  });
}

}  // namespace gpusched::cli
