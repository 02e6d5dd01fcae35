// gpusched gen: generators. `profile` draws a kernel profile from a mean block time and its spread (the
// paper-derived traces are made this way, see traces/make-paper-traces.sh); `synthetic` writes seed 002's
// synthetic workload (N kernels of 4..NB blocks).
#include <fmt/format.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/generator.h"
#include "core/profile_io.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"

namespace gpusched::cli {

void add_gen_command(CLI::App& app) {
  auto* gen = app.add_subcommand("gen", "Generate kernel profiles and synthetic workloads");
  gen->require_subcommand(1);

  auto* prof = gen->add_subcommand("profile", "Draw a kernel profile: lognormal block times with a mean and RSD, laid "
                                              "out as the kernel runs alone at full residency");
  auto ps = std::make_shared<SyntheticProfileSpec>();
  auto out_dir = std::make_shared<std::string>(".");
  auto mean_cycles = std::make_shared<double>(0.0);
  auto mean_us = std::make_shared<double>(0.0);
  auto rsd_percent = std::make_shared<double>(0.0);
  auto context = std::make_shared<std::int64_t>(-1);
  auto pur = std::make_shared<double>(-1), mur = std::make_shared<double>(-1), instr = std::make_shared<double>(-1);
  prof->add_option("--name", ps->name, "Kernel name")->required();
  prof->add_option("--gpu", ps->gpu, "GPU preset the profile is for")->required();
  prof->add_option("--blocks", ps->blocks, "Blocks in the grid")->required()->check(CLI::PositiveNumber);
  prof->add_option("--threads", ps->threads_per_block, "Threads per block")->required()->check(CLI::Range(1, 1024));
  prof->add_option("--registers", ps->registers_per_thread, "Registers per thread")->check(CLI::Range(0, 255));
  prof->add_option("--smem", ps->shared_memory_per_block, "Shared memory per block, bytes")->check(CLI::NonNegativeNumber);
  prof->add_option("--mean-cycles", *mean_cycles, "Mean block time in cycles of the GPU's clock");
  prof->add_option("--mean-us", *mean_us, "Mean block time in microseconds");
  prof->add_option("--rsd", *rsd_percent, "Relative standard deviation of block times, percent")
      ->check(CLI::NonNegativeNumber);
  prof->add_option("--seed", ps->seed, "Random seed");
  prof->add_option("--context-bytes", *context, "Context bytes per block (default: registers and shared memory)");
  prof->add_option("--idempotent-until", ps->idempotent_until, "Fraction of a block after which it is not idempotent")
      ->check(CLI::Range(0.0, 1.0));
  prof->add_option("--footprint", ps->memory_footprint_bytes, "Device memory footprint, bytes");
  prof->add_option("--pur", *pur, "Kernelet PUR");
  prof->add_option("--mur", *mur, "Kernelet MUR");
  prof->add_option("--instructions", *instr, "Instructions per block");
  prof->add_option("--out", *out_dir, "Output folder");
  prof->callback([=] {
    SyntheticProfileSpec spec = *ps;
    const GpuSpec* gpu = find_gpu_preset(spec.gpu);
    if (!gpu) throw std::invalid_argument(fmt::format("--gpu: expected a GPU preset ({}), found \"{}\"", gpu_preset_names(), spec.gpu));
    if ((*mean_cycles > 0) == (*mean_us > 0)) throw std::invalid_argument("give exactly one of --mean-cycles and --mean-us (> 0)");
    spec.mean_block_ns = *mean_cycles > 0 ? *mean_cycles * 1000.0 / gpu->clock_mhz : *mean_us * 1000.0;
    spec.rsd = *rsd_percent / 100.0;
    spec.context_bytes_per_block = *context;
    if (*pur >= 0) spec.pur = *pur;
    if (*mur >= 0) spec.mur = *mur;
    if (*instr >= 0) spec.instructions_per_block = *instr;
    const auto g = synthesize_profile(spec);
    write_kernel_profile(*out_dir, g.profile, g.records);
    fmt::print("wrote {}/{}.kernel.toml ({} blocks, residency {})\n", *out_dir, spec.name, spec.blocks,
               g.profile.record_sets.front().residency);
  });

  add_gen_pairs_command(*gen);
  add_gen_kernelet_command(*gen);
  add_gen_chimera_command(*gen);
  add_gen_sharegpu_command(*gen);

  auto* syn = gen->add_subcommand("synthetic", "Seed 002's synthetic workload: N kernels of 4..NB blocks with random "
                                               "shared memory, threads and block times, in 32 streams");
  auto ks = std::make_shared<KnapsackGeneratorSpec>();
  auto syn_out = std::make_shared<std::string>();
  syn->add_option("--n", ks->kernels, "Number of kernels (N)")->check(CLI::Range(1, 100000));
  syn->add_option("--nb", ks->max_blocks, "Maximum blocks per kernel (NB)")->check(CLI::Range(4, 1 << 24));
  syn->add_option("--gpu", ks->gpu, "GPU preset");
  syn->add_option("--streams", ks->streams, "Streams the kernels are submitted to")->check(CLI::Range(1, 1024));
  syn->add_option("--min-block-us", ks->min_block_us, "Shortest mean block time, microseconds")->check(CLI::PositiveNumber);
  syn->add_option("--max-block-us", ks->max_block_us, "Longest mean block time, microseconds")->check(CLI::PositiveNumber);
  syn->add_option("--seed", ks->seed, "Random seed");
  syn->add_option("--out", *syn_out, "Output folder (kernels/ and the workload file go here)")->required();
  syn->callback([=] {
    if (ks->min_block_us > ks->max_block_us) throw std::invalid_argument("--min-block-us is above --max-block-us");
    if (!find_gpu_preset(ks->gpu)) throw std::invalid_argument(fmt::format("--gpu: expected a GPU preset ({}), found \"{}\"", gpu_preset_names(), ks->gpu));
    const auto g = generate_knapsack_workload(*ks);
    namespace fs = std::filesystem;
    const fs::path dir(*syn_out);
    std::vector<std::string> paths;
    for (const auto& p : g.profiles) {
      write_kernel_profile((dir / "kernels").string(), p.profile, p.records);
      paths.push_back("kernels/" + p.profile.name + ".kernel.toml");
    }
    const auto file = dir / (g.workload.name + ".toml");
    AtomicFile f(file.string());
    f.write(fmt::format("# gpusched gen synthetic --n {} --nb {} --gpu {} --seed {}\n", ks->kernels, ks->max_blocks,
                        ks->gpu, ks->seed));
    f.write(workload_file_text(g.workload, paths));
    f.commit();
    fmt::print("wrote {} ({} kernels, {} blocks)\n", file.string(), g.workload.launches.size(), g.workload.total_blocks());
  });
}

}  // namespace gpusched::cli
