// Sweeps: the file format (and its errors), the expansion (grids, shards), resuming after the process is
// killed with -9, stopping on Ctrl-C, merging shards, the Slurm script, and the report's statistics.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "core/store/report.h"
#include "core/store/store.h"
#include "sim/runner.h"
#include "sim/sweep/expansion.h"
#include "sim/sweep/slurm.h"
#include "sim/sweep/sweep_file.h"
#include "test_helpers.h"

using namespace gpusched;
namespace fs = std::filesystem;

namespace {

std::string temp_dir(const std::string& name) {
  const auto p = fs::temp_directory_path() / ("gpusched_sweep_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

// A sweep over the 56 ERCBench pairs; `seeds` multiplies the runs.
std::string write_pairs_sweep(const std::string& dir, int seeds, const std::string& policies = "name = \"all\"") {
  std::string seed_list;
  for (int s = 1; s <= seeds; ++s) {
    if (s > 1) seed_list += ", ";  // (a conditional operand to operator+ draws a GCC 12 LTO false warning)
    seed_list += std::to_string(s);
  }
  const std::string path = dir + "/pairs.toml";
  std::ofstream(path) << "format = \"gpusched-sweep\"\nversion = 1\nname = \"pairs\"\nseeds = [" << seed_list
                      << "]\n\n[[workloads]]\ngenerator = \"pairs\"\nkernels = [\"" << GPUSCHED_TRACES_DIR
                      << "/ercbench/*.kernel.toml\"]\ngpu = \"gtx480\"\n\n[[policies]]\n"
                      << policies << "\n";
  return path;
}

std::map<std::string, double> stp_by_key(const std::string& db) {
  std::map<std::string, double> out;
  const auto s = store::Store::open(db, store::Store::Mode::ReadOnly);
  for (const auto& r : s.list_runs()) out[r.info.key] = r.metrics.stp;
  return out;
}

std::int64_t count_runs(const std::string& db) {
  try {
    return store::Store::open(db, store::Store::Mode::ReadOnly).run_count();
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

pid_t spawn_sweep(const std::string& sweep, const std::string& db, const std::string& jobs) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(GPUSCHED_BINARY, GPUSCHED_BINARY, "sweep", sweep.c_str(), "--db", db.c_str(), "--jobs", jobs.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Waits until the child has stored at least `runs` runs (or has exited); true when it is still running.
bool wait_for_runs(pid_t pid, const std::string& db, std::int64_t runs) {
  for (int i = 0; i < 20000; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    if (count_runs(db) >= runs) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Runs of the ERCBench pair sweeps: 56 pairs x every registered policy x seeds.
std::int64_t pair_runs(int seeds) {
  return 56 * static_cast<std::int64_t>(sim::all_policy_names().size()) * seeds;
}


// Two fast policies: the kill and Ctrl-C tests need many runs that each take little time (also under ASan).
const std::string kFastPolicies = "name = \"fifo\"\n[[policies]]\nname = \"sjf\"";

}  // namespace

TEST(SweepFile, ReadsEveryField) {
  const auto spec = sim::parse_sweep(R"(format = "gpusched-sweep"
version = 1
name = "grid"
keep_blocks = true
seeds = [1, 2]
interference = ["none", "residency"]
gpus = ["h100"]
gpu_counts = [1, 2]

[[workloads]]
files = ["a.toml", "b/*.toml"]

[[workloads]]
generator = "synthetic"
kernels = 8
max_blocks = 16
seeds = [3, 4]

[[policies]]
name = "knapsack"
set = { solver = "exact" }
[policies.grid]
time_only = [true, false]
)",
                                     "grid.toml", ".", nullptr);
  EXPECT_EQ(spec.name, "grid");
  EXPECT_TRUE(spec.keep_blocks);
  EXPECT_EQ(spec.seeds, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(spec.interference.size(), 2u);
  EXPECT_EQ(spec.gpu_counts, (std::vector<int>{1, 2}));
  ASSERT_EQ(spec.workloads.size(), 2u);
  EXPECT_EQ(spec.workloads[0].files.size(), 2u);
  EXPECT_EQ(spec.workloads[1].generator, "synthetic");
  EXPECT_EQ(spec.workloads[1].params.at("kernels"), "8");
  EXPECT_EQ(spec.workloads[1].seeds, (std::vector<std::uint64_t>{3, 4}));
  ASSERT_EQ(spec.policies.size(), 1u);
  EXPECT_EQ(spec.policies[0].set.at("solver"), "exact");
  EXPECT_EQ(spec.policies[0].grid.at("time_only"), (std::vector<std::string>{"true", "false"}));
}

TEST(SweepFile, BadInputNamesLineAndField) {
  const std::string head = "format = \"gpusched-sweep\"\nversion = 1\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {head + "[[policies]]\nname = \"fifo\"\n", "workloads"},
      {head + "[[workloads]]\nfiles = []\n[[policies]]\nname = \"fifo\"\n", "bad.toml:4:"},
      {head + "[[workloads]]\ngenerator = \"magic\"\n[[policies]]\nname = \"fifo\"\n", "generator"},
      {head + "[[workloads]]\ngenerator = \"pairs\"\nkernels = [\"x\"]\n[[policies]]\nname = \"fifo\"\n", "'gpu'"},
      {head + "seeds = [-1]\n[[workloads]]\nfiles = [\"a\"]\n[[policies]]\nname = \"fifo\"\n", "seeds"},
      {head + "[[workloads]]\nfiles = [\"a\"]\n[[policies]]\nname = \"srtf\"\ngrid = { x = [] }\n",
       "policies[0].grid.x"},
      {head + "[[workloads]]\nfiles = [\"a\"]\n[[policies]]\nname = \"all\"\nset = { x = 1 }\n", "takes no parameters"},
      {head + "gpu_counts = [0]\n[[workloads]]\nfiles = [\"a\"]\n[[policies]]\nname = \"fifo\"\n", "gpu_counts"},
      {"format = \"gpusched-workload\"\nversion = 1\n", "format"},
  };
  for (const auto& [text, words] : cases) {
    try {
      sim::parse_sweep(text, "bad.toml", ".", nullptr);
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.toml"), std::string::npos) << e.what();
    }
  }
}

TEST(SweepExpansion, GridsShardsAndBadEntries) {
  const auto dir = temp_dir("expand");
  const auto path = write_pairs_sweep(dir, 2,
                                      "name = \"knapsack\"\n[policies.grid]\nsolver = [\"exact\", \"linearized\"]\n"
                                      "[[policies]]\nname = \"fifo\"");
  Warnings warn;
  const auto spec = sim::read_sweep_file(path, &warn);
  EXPECT_TRUE(warn.empty()) << warn.front();
  const auto plan = sim::expand_sweep(spec, &warn);
  // 56 pairs x (2 knapsack settings + fifo) x 2 seeds.
  ASSERT_EQ(plan.workloads.size(), 56u);
  ASSERT_EQ(plan.jobs.size(), 56u * 3 * 2);
  std::set<std::string> keys;
  for (const auto& j : plan.jobs) keys.insert(j.info.key);
  EXPECT_EQ(keys.size(), plan.jobs.size()) << "every job has its own key";
  // Shards partition the expansion.
  std::set<std::size_t> seen;
  for (int i = 0; i < 3; ++i) {
    const auto shard = sim::expand_sweep(spec, &warn, sim::parse_shard(std::to_string(i) + "/3"));
    for (const auto& j : shard.jobs) {
      EXPECT_EQ(j.index % 3, static_cast<std::size_t>(i));
      EXPECT_TRUE(seen.insert(j.index).second);
    }
  }
  EXPECT_EQ(seen.size(), plan.jobs.size());
  for (const char* bad : {"3/3", "1", "-1/2", "a/b", "0/0"}) EXPECT_THROW(sim::parse_shard(bad), std::invalid_argument);

  // An unknown policy parameter names the policy's line; a glob matching nothing names the files.
  const auto bad_param = write_pairs_sweep(dir, 1, "name = \"srtf\"\nset = { nonsense = 1 }");
  try {
    sim::expand_sweep(sim::read_sweep_file(bad_param, &warn), &warn);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pairs.toml:11"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nonsense"), std::string::npos) << e.what();
  }
  std::ofstream(dir + "/glob.toml") << "format = \"gpusched-sweep\"\nversion = 1\n[[workloads]]\nfiles = "
                                       "[\"nothing-*.toml\"]\n[[policies]]\nname = \"fifo\"\n";
  try {
    sim::expand_sweep(sim::read_sweep_file(dir + "/glob.toml", &warn), &warn);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("workloads[0].files"), std::string::npos) << e.what();
  }
}

TEST(SweepCli, ResumesAfterKill9WithNoDuplicateAndNothingLost) {
  const auto dir = temp_dir("kill9");
  const auto sweep = write_pairs_sweep(dir, 20, kFastPolicies);  // 56 pairs x 2 policies x 20 seeds
  const std::int64_t total = 56 * 2 * 20;
  const auto db = dir + "/runs.db";
  const pid_t child = spawn_sweep(sweep, db, "2");
  const bool running = wait_for_runs(child, db, 50);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  const auto partial = count_runs(db);
  if (running) {
    EXPECT_LT(partial, total) << "killed before the end";
  }
  std::string out;
  ASSERT_EQ(test::run_cli("sweep " + sweep + " --db " + db + " --jobs 2", out), 0) << out;
  EXPECT_NE(out.find(std::to_string(partial) + " already stored"), std::string::npos) << out;
  const auto resumed = stp_by_key(db);
  EXPECT_EQ(static_cast<std::int64_t>(resumed.size()), total);
  EXPECT_EQ(count_runs(db), total) << "no duplicates";
  // The same metrics as an uninterrupted run.
  ASSERT_EQ(test::run_cli("sweep " + sweep + " --db " + dir + "/clean.db --jobs 1", out), 0) << out;
  EXPECT_EQ(resumed, stp_by_key(dir + "/clean.db"));
}

TEST(SweepCli, CtrlCStopsAfterRunsInFlight) {
  const auto dir = temp_dir("sigint");
  const auto sweep = write_pairs_sweep(dir, 20, kFastPolicies);
  const std::int64_t total = 56 * 2 * 20;
  const auto db = dir + "/runs.db";
  const pid_t child = spawn_sweep(sweep, db, "2");
  const bool running = wait_for_runs(child, db, 20);
  if (!running) GTEST_SKIP() << "the sweep finished before it could be interrupted";
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const auto stopped_at = count_runs(db);
  EXPECT_GT(stopped_at, 0);
  EXPECT_LT(stopped_at, total);
  std::string out;
  ASSERT_EQ(test::run_cli("sweep " + sweep + " --db " + db, out), 0) << out;
  EXPECT_EQ(count_runs(db), total);
}

TEST(SweepCli, ShardsMergeToTheWholeSweepAndMergeIsIdempotent) {
  const auto dir = temp_dir("shards");
  const auto sweep = write_pairs_sweep(dir, 1);
  std::string out;
  ASSERT_EQ(test::run_cli("sweep " + sweep + " --db " + dir + "/all.db --jobs 2", out), 0) << out;
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(test::run_cli(fmt::format("sweep {} --db {}/s{}.db --shard {}/3", sweep, dir, i, i), out), 0) << out;
  ASSERT_EQ(test::run_cli(fmt::format("merge {0}/merged.db {0}/s0.db {0}/s1.db {0}/s2.db", dir), out), 0) << out;
  const std::string merged_line = fmt::format("merged.db: {} runs", pair_runs(1));
  EXPECT_NE(out.find(merged_line), std::string::npos) << out;
  EXPECT_EQ(stp_by_key(dir + "/merged.db"), stp_by_key(dir + "/all.db"));
  ASSERT_EQ(test::run_cli(fmt::format("merge {0}/merged.db {0}/s0.db {0}/s1.db {0}/s2.db {0}/all.db", dir), out), 0);
  EXPECT_NE(out.find(merged_line), std::string::npos) << out;
  EXPECT_EQ(out.find(" 1 runs added"), std::string::npos) << out;
  // A foreign or corrupt input is refused with the file named and exit 2.
  std::ofstream(dir + "/junk.db") << "junk junk junk junk junk junk junk junk junk junk junk junk junk junk junk";
  EXPECT_EQ(test::run_cli(fmt::format("merge {0}/merged.db {0}/junk.db", dir), out), 2) << out;
  EXPECT_NE(out.find("junk.db"), std::string::npos) << out;
  EXPECT_EQ(test::run_cli(fmt::format("report {0}/junk.db", dir), out), 2) << out;
}

TEST(SweepCli, EmitsASlurmArray) {
  const auto dir = temp_dir("slurm");
  const auto sweep = write_pairs_sweep(dir, 1);
  std::string out;
  ASSERT_EQ(test::run_cli(fmt::format("sweep {} --emit-slurm {}/job --shards 4 --cpus-per-task 2 --sbatch "
                                      "--time=0:10:00",
                                      sweep, dir),
                          out),
            0)
      << out;
  const auto sbatch = test::read_file(dir + "/job/sweep.sbatch");
  EXPECT_NE(sbatch.find("#SBATCH --array=0-3"), std::string::npos) << sbatch;
  EXPECT_NE(sbatch.find("#SBATCH --cpus-per-task=2"), std::string::npos);
  EXPECT_NE(sbatch.find("#SBATCH --time=0:10:00"), std::string::npos);
  EXPECT_NE(sbatch.find("--shard \"$shard/4\""), std::string::npos);
  EXPECT_TRUE(fs::is_directory(dir + "/job/results"));
  EXPECT_NE(test::read_file(dir + "/job/merge.sh").find("merge"), std::string::npos);
  EXPECT_EQ(sim::shell_quote("it's"), "'it'\\''s'");
}

TEST(Report, StatisticsByHand) {
  // 1, 2, 4: mean 7/3; geometric mean (1*2*4)^(1/3) = 2; sample sd sqrt(((4/3)^2 + (1/3)^2 + (5/3)^2) / 2) =
  // sqrt(42/18) = 1.5275; median 2.
  const auto s = store::summarize({4, 1, 2});
  EXPECT_EQ(s.n, 3u);
  EXPECT_NEAR(s.mean, 7.0 / 3, 1e-12);
  EXPECT_NEAR(s.geomean, 2.0, 1e-12);
  EXPECT_NEAR(s.stddev, std::sqrt(42.0 / 18), 1e-12);
  EXPECT_EQ(s.median, 2.0);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 4.0);
  EXPECT_FALSE(store::summarize({0.0, 1.0}).geomean_defined) << "a zero has no geometric mean";
  EXPECT_EQ(store::summarize({1, 3}).median, 2.0);
  // Quartiles as Tukey's hinges: 1, 2, 4 -> halves {1, 2} and {2, 4}: q1 1.5, q3 3.
  EXPECT_EQ(s.q1, 1.5);
  EXPECT_EQ(s.q3, 3.0);
  // 1..6 -> halves {1, 2, 3} and {4, 5, 6}: q1 2, q3 5.
  const auto six = store::summarize({6, 5, 4, 3, 2, 1});
  EXPECT_EQ(six.q1, 2.0);
  EXPECT_EQ(six.q3, 5.0);

  std::vector<store::RunSummary> runs(3);
  runs[0].info.policy = "a";
  runs[0].metrics.stp = 1;
  runs[1].info.policy = "b";
  runs[1].metrics.stp = 5;
  runs[2].info.policy = "a";
  runs[2].metrics.stp = 3;
  const auto groups = store::group_runs(runs, {"policy"});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].key, std::vector<std::string>{"a"});
  EXPECT_EQ(groups[0].runs.size(), 2u);
  EXPECT_EQ(groups[0].stats[0].mean, 2.0);  // stp of a: (1 + 3) / 2
  EXPECT_THROW(store::group_runs(runs, {"colour"}), std::invalid_argument);
}

TEST(SweepCli, ReportAndExportFromAStore) {
  const auto dir = temp_dir("report");
  std::string out;
  const std::string small = std::string(GPUSCHED_TEST_DATA) + "/small/small.toml";
  ASSERT_EQ(test::run_cli("sim -w " + small + " -p fifo,srtf --db " + dir + "/r.db", out), 0) << out;
  ASSERT_EQ(test::run_cli("report " + dir + "/r.db --group-by policy --format csv", out), 0) << out;
  EXPECT_NE(out.find("policy,runs,stp_mean"), std::string::npos) << out;
  EXPECT_NE(out.find("\nfifo,1,"), std::string::npos) << out;
  EXPECT_NE(out.find("\nsrtf,1,"), std::string::npos) << out;
  EXPECT_EQ(test::run_cli("report " + dir + "/r.db --group-by colour", out), 2) << out;
  ASSERT_EQ(test::run_cli("export " + dir + "/r.db --run 2 --csv " + dir + "/s.csv", out), 0) << out;
  // The exported Schedule equals the one `sim --timeline` writes.
  ASSERT_EQ(test::run_cli("sim -w " + small + " -p srtf --timeline " + dir + "/direct.csv", out), 0) << out;
  EXPECT_EQ(test::read_file(dir + "/s.csv"), test::read_file(dir + "/direct.csv"));
  EXPECT_EQ(test::run_cli("export " + dir + "/r.db --run 99 --csv " + dir + "/t.csv", out), 2) << out;
  EXPECT_FALSE(fs::exists(dir + "/t.csv"));
}
