// The gpusched command: every malformed-input class gets one exact message and exit code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "sim/runner.h"
#include "test_helpers.h"

using gpusched::test::run_cli;

namespace {
const std::string kBad = std::string(GPUSCHED_TEST_DATA) + "/bad/";

struct BadCase {
  const char* file;
  const char* message;  // after "gpusched: error: <dir>/"
};

std::string validate(const std::string& file, int& code) {
  std::string out;
  code = run_cli("validate " + kBad + file, out);
  return out;
}
}  // namespace

TEST(Cli, MalformedInputGetsExactMessageAndExitCode2) {
  const BadCase cases[] = {
      // truncated files
      {"truncated.kernel.toml",
       "truncated.kernel.toml:4:11: not valid TOML: Error while parsing array: encountered "
       "end-of-file"},
      {"truncated.csv",
       "truncated.csv:3:6: field 'end': expected 4 comma-separated fields (block,sm,start,end), found 3"},
      {"truncated-csv.kernel.toml",
       "truncated.csv:3:6: field 'end': expected 4 comma-separated fields (block,sm,start,end), found 3"},
      {"empty.csv",
       "empty.csv:1: field 'header': expected the header line \"block,sm,start,end\", found an empty file"},
      // wrong type
      {"wrong-type.kernel.toml",
       "wrong-type.kernel.toml:7:24: field 'registers_per_thread': expected an integer, found string \"32\""},
      {"wrong-type.csv", "wrong-type.csv:2:5: field 'start': expected an integer, found \"zero\""},
      // missing field
      {"missing-field.kernel.toml", "missing-field.kernel.toml:1:1: field 'block': missing (this field is required)"},
      // negative time
      {"negative-time.csv", "negative-time.csv:2:5: field 'start': expected a non-negative time, found -5"},
      {"negative-arrival.toml",
       "negative-arrival.toml:17:14: field 'launch[1].arrival_ns': expected an integer >= 0, found -100"},
      {"wrong-type-coalesced.toml",
       "wrong-type-coalesced.toml:11:19: field 'launch[0].block_coalesced': expected true or false, found string "
       "\"yes\""},
      // end before start
      {"end-before-start.kernel.toml",
       "end-before-start.csv:3:7: field 'end': expected an end time >= start (5), found 3"},
      // block index out of range, and recorded twice
      {"block-out-of-range.kernel.toml",
       "block-out-of-range.csv:3:1: field 'block': expected a block index in [0, 3], found 7"},
      {"duplicate-block.kernel.toml", "duplicate-block.csv:3:1: field 'block': block 0 is recorded twice"},
      // unknown kernel or GPU name
      {"unknown-kernel.toml",
       "unknown-kernel.toml:16:10: field 'launch[1].kernel': expected a kernel named in [kernels] (a), found \"b\""},
      {"unknown-gpu.kernel.toml",
       "unknown-gpu.kernel.toml:4:7: field 'gpu': expected a GPU preset (gtx480, c2050, gtx680, k40, titanx, "
       "chimera-fermi, h100, h200), found \"h1000\""},
      {"unknown-gpu.toml",
       "unknown-gpu.toml:3:7: field 'gpu': expected a GPU preset (gtx480, c2050, gtx680, k40, titanx, chimera-fermi, "
       "h100, h200) or a GPU file, found \"gtx9000\""},
      // duplicate launch id, unknown dependency, cycle
      {"duplicate-id.toml",
       "duplicate-id.toml:15:6: field 'launch[1].id': duplicate launch id 'x' (first defined at "
       "line 8)"},
      {"unknown-dependency.toml",
       "unknown-dependency.toml:18:9: field 'launch[1].after[0]': expected the id of a launch in this file, found "
       "\"z\""},
      {"cycle.toml", "cycle.toml:8: cyclic dependencies among launches x, y"},
  };
  for (const auto& c : cases) {
    int code = 0;
    const auto out = validate(c.file, code);
    EXPECT_EQ(code, 2) << c.file;
    EXPECT_EQ(out, "gpusched: error: " + kBad + c.message + "\n") << c.file;
  }
}

TEST(Cli, UnknownFieldWarnsButPasses) {
  int code = 0;
  const auto out = validate("unknown-field.kernel.toml", code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find(kBad + "unknown-field.kernel.toml:8:25: warning: unknown field 'registers_per_threads' (ignored)"),
            std::string::npos)
      << out;
}

TEST(Cli, SimPrintsOneRowPerPolicy) {
  std::string out;
  ASSERT_EQ(run_cli("sim --workload " + std::string(GPUSCHED_TEST_DATA) + "/small/small.toml --policy all", out), 0)
      << out;
  for (const char* p : {"fifo", "serial", "sjf", "mpmax", "spatial"})
    EXPECT_NE(out.find(std::string("\n") + p + " "), std::string::npos) << p;
  EXPECT_NE(out.find("STP"), std::string::npos);
}

TEST(Cli, AsPrioritiesReplaysEachPlanThroughTheDispatcher) {
  std::string out;
  const std::string w = "as-priorities -w " + std::string(GPUSCHED_TEST_DATA) + "/small/small.toml ";
  ASSERT_EQ(run_cli(w + "--policy fifo,sjf,chimera", out), 0) << out;
  // fifo and sjf replay exactly (sim/launch_priorities.h); every row names its policy.
  EXPECT_NE(out.find("\nfifo "), std::string::npos) << out;
  const auto sjf = out.substr(out.find("\nsjf "));
  EXPECT_NE(sjf.find("0.0%       0.0%       0.0%"), std::string::npos) << out;
  EXPECT_NE(sjf.find("within the bound"), std::string::npos) << out;
  EXPECT_NE(out.find("\nchimera "), std::string::npos) << out;
  ASSERT_EQ(run_cli(w + "--policy sjf --per-launch", out), 0) << out;
  for (const char* id : {"a0", "b0", "b1", "c0"})
    EXPECT_NE(out.find(std::string("  ") + id + " "), std::string::npos) << id;
  EXPECT_EQ(run_cli(w + "--policy nosuch", out), 2);
  EXPECT_NE(out.find("unknown policy 'nosuch'"), std::string::npos) << out;
  EXPECT_NE(run_cli(w + "--policy fifo --levels 0", out), 0);
}

TEST(Cli, AsPrioritiesReplaysPartsEachWay) {
  // srtf's validate-h100 plan, which the dispatcher cannot replay, in parts: at the launches' priorities, held, at
  // priorities of their own, and both; with --per-launch each part's priority (docs/validation.md, "Parts at
  // priorities of their own").
  std::string out;
  ASSERT_EQ(run_cli("as-priorities -w " + std::string(GPUSCHED_TRACES_DIR) +
                        "/workloads/validate-h100.toml -p srtf --interference auto --parts-capped --part-priorities "
                        "--per-launch",
                    out),
            0)
      << out;
  for (const char* line : {"  37 parts ", "\n  capped ", "\n  by part ", "\n  both ", "part (by part)", "\n  sad#0 "})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
}

TEST(Cli, AsPrioritiesWritesThePartsValidateWouldCut) {
  // validate-h100's plans under spatial (cut into parts of blocks) and chimera (parts of pieces): one row per planned
  // piece, so as many rows per policy as its plan has pieces.
  const std::string csv = (std::filesystem::temp_directory_path() / "gpusched_parts_cli.csv").string();
  std::string out;
  ASSERT_EQ(run_cli("as-priorities -w " + std::string(GPUSCHED_TRACES_DIR) +
                        "/workloads/validate-h100.toml -p spatial,chimera --parts-csv " + csv,
                    out),
            0)
      << out;
  const std::string rows = gpusched::test::read_file(csv);
  ASSERT_EQ(rows.rfind("policy,launch,launch_id,part,block,start_ns,end_ns\n", 0), 0u) << rows.substr(0, 200);
  std::map<std::string, std::size_t> per_policy;
  std::size_t at = rows.find('\n') + 1;
  while (at < rows.size()) {
    per_policy[rows.substr(at, rows.find(',', at) - at)]++;
    at = rows.find('\n', at) + 1;
  }
  // Each plan's pieces, from the simulation of the same workload and policy.
  const auto loaded = gpusched::sim::load_workload_and_gpu(
      std::string(GPUSCHED_TRACES_DIR) + "/workloads/validate-h100.toml", "", nullptr, "--gpu", "");
  gpusched::sim::AloneTimeCache cache;
  for (const std::string policy : {"spatial", "chimera"}) {
    gpusched::sim::RunOptions o;
    o.policy = policy;
    const auto plan = gpusched::sim::run_workload(loaded.workload, loaded.gpu, o, cache);
    EXPECT_EQ(per_policy[policy], plan.schedule.pieces.size()) << policy;
  }
  std::filesystem::remove(csv);
}

TEST(Cli, BadPolicyParametersAreInputErrors) {
  std::string out;
  const std::string w = "sim -w " + std::string(GPUSCHED_TEST_DATA) + "/small/small.toml ";
  EXPECT_EQ(run_cli(w + "--policy nosuch", out), 2);
  std::string names;  // the registry's names, sorted: the message lists every policy
  for (const auto& n : gpusched::sim::all_policy_names()) names += (names.empty() ? "" : ", ") + n;
  EXPECT_EQ(out, "gpusched: error: unknown policy 'nosuch' (policies: " + names + ")\n");
  EXPECT_EQ(run_cli(w + "--policy fifo --set fifo.speed=3", out), 2);
  EXPECT_EQ(out, "gpusched: error: policy fifo: unknown parameter 'speed' (parameters: placement)\n");
  EXPECT_EQ(run_cli(w + "--policy fifo --set sjf.placement=x", out), 2);
  EXPECT_EQ(run_cli(w + "--policy fifo --set fifo.placement=sideways", out), 2);
  EXPECT_EQ(out, "gpusched: error: parameter 'placement' expects auto, round-robin or most-free, found \"sideways\"\n");
  EXPECT_EQ(run_cli(w + "--policy fifo --set fifo.placement=round-robin", out), 0) << out;
  EXPECT_EQ(run_cli(w + "--policy srtf --set srtf.remaining=gpu", out), 0) << out;
  EXPECT_EQ(run_cli(w + "--policy srtf --set srtf.remaining=mean", out), 2);
  EXPECT_EQ(out, "gpusched: error: parameter 'remaining' expects sm-max or gpu, found \"mean\"\n");
  EXPECT_EQ(run_cli(w + "--policy srtf --set srtf", out), 2);
  EXPECT_EQ(out, "gpusched: error: --set: expected POLICY.PARAM=VALUE, found \"srtf\"\n");
  EXPECT_EQ(run_cli(w + "--policy fifo --gpu nosuch", out), 2);
  EXPECT_EQ(run_cli("sim", out), 2);
}

TEST(Cli, GeneratedSyntheticWorkloadValidatesAndSimulates) {
  const auto dir = (std::filesystem::temp_directory_path() / "gpusched_gen_cli").string();
  std::filesystem::remove_all(dir);
  std::string out;
  ASSERT_EQ(run_cli("gen synthetic --n 8 --nb 16 --seed 5 --out " + dir, out), 0) << out;
  const std::string wl = dir + "/knapsack-n8-nb16-s5.toml";
  ASSERT_EQ(run_cli("validate " + wl, out), 0) << out;
  EXPECT_NE(out.find("8 launches"), std::string::npos) << out;
  ASSERT_EQ(run_cli("sim -w " + wl + " --policy fifo,sjf --timeline " + dir + "/t.json", out), 0) << out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/t.fifo.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/t.sjf.json"));
  ASSERT_EQ(run_cli("sim -w " + wl + " --policy fifo --stream-schedule " + dir + "/s.csv", out), 0) << out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/s.csv"));
  std::filesystem::remove_all(dir);
}

TEST(Cli, InfoAndGpus) {
  std::string out;
  ASSERT_EQ(run_cli("info", out), 0);
  EXPECT_NE(out.find("gpusched 0.1.0"), std::string::npos);
  ASSERT_EQ(run_cli("gpus", out), 0);
  EXPECT_NE(out.find("chimera-fermi"), std::string::npos);
  ASSERT_EQ(run_cli("gpus --show k40", out), 0);
  EXPECT_NE(out.find("sm_count = 15"), std::string::npos);
  EXPECT_NE(out.find("max_resident_grids = 32"), std::string::npos);  // compute 3.5
}

TEST(Cli, SimTakesTheResidentGridsToHold) {
  // The growing queue of 15 launches: srtf samples each arrival, so with one grid its schedule differs from the
  // default's (128 on the H100, never reached here); a negative count is refused.
  const std::string q = std::string(GPUSCHED_TEST_DATA) + "/small/queue.toml";
  std::string deflt, one, zero;
  ASSERT_EQ(run_cli("sim -w " + q + " -p srtf --format csv", deflt), 0) << deflt;
  ASSERT_EQ(run_cli("sim -w " + q + " -p srtf --format csv --max-resident-grids 0", zero), 0) << zero;
  ASSERT_EQ(run_cli("sim -w " + q + " -p srtf --format csv --max-resident-grids 1", one), 0) << one;
  EXPECT_EQ(deflt, zero);
  EXPECT_NE(deflt, one);
  std::string bad;
  EXPECT_EQ(run_cli("sim -w " + q + " -p srtf --max-resident-grids -1", bad), 2);
  EXPECT_NE(bad.find("--max-resident-grids"), std::string::npos) << bad;
}

TEST(Cli, PredictReportsRatiosPerLaunch) {
  std::string out;
  ASSERT_EQ(run_cli("predict -w " + std::string(GPUSCHED_TRACES_DIR) + "/workloads/default.toml -p fifo", out), 0)
      << out;
  EXPECT_NE(out.find("raytracing"), std::string::npos) << out;
  EXPECT_NE(out.find("first prediction / actual:"), std::string::npos) << out;
  EXPECT_EQ(run_cli("predict -w " + std::string(GPUSCHED_TRACES_DIR) + "/workloads/default.toml -p nosuch", out), 2);
}

TEST(Cli, GenPairsWritesEveryOrderedPair) {
  const auto dir = (std::filesystem::temp_directory_path() / "gpusched_pairs_cli").string();
  std::filesystem::remove_all(dir);
  const std::string t = std::string(GPUSCHED_TRACES_DIR) + "/ercbench/";
  std::string out;
  ASSERT_EQ(run_cli("gen pairs --gpu gtx480 --out " + dir + " --kernels " + t + "aes-d.kernel.toml " + t +
                        "jpeg-d.kernel.toml " + t + "sad.kernel.toml",
                    out),
            0)
      << out;
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.path().extension() == ".toml";
  EXPECT_EQ(n, 6);  // 3 x 2 ordered pairs
  ASSERT_EQ(run_cli("sim -w " + dir + "/jpeg-d+sad.toml -p srtf", out), 0) << out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, ReorderPrintsTheNewOrder) {
  std::string out;
  const std::string w = std::string(GPUSCHED_TRACES_DIR) + "/synthetic/knapsack-n32-nb64-s1.toml";
  ASSERT_EQ(run_cli("reorder -w " + w, out), 0) << out;
  EXPECT_NE(out.find("reordered 32 launches into 32 queues with 32 knapsacks"), std::string::npos) << out;
  EXPECT_EQ(run_cli("reorder -w " + w + " --solver linearized", out), 2);  // table far too large: refused
  EXPECT_NE(out.find("linearised knapsack table too large"), std::string::npos) << out;
}

TEST(Cli, ChimeraCommandsRunTheScenarioAndThePairs) {
  const std::string traces = std::string(GPUSCHED_TRACES_DIR) + "/chimera";
  std::string out;
  ASSERT_EQ(
      run_cli("chimera-rt --traces " + traces + " --benchmarks bp --policies preempt-flush,chimera --jobs 1", out), 0)
      << out;
  EXPECT_NE(out.find("| bp | 15 | relaxed | chimera | 21 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| 15 | relaxed | preempt-flush |"), std::string::npos) << out;
  ASSERT_EQ(run_cli("chimera-pairs --traces " + traces + " --with lud --benchmarks bp --policies chimera", out), 0)
      << out;
  EXPECT_NE(out.find("| lud+bp |"), std::string::npos) << out;
  // Bad input: exit 2 with the reason.
  EXPECT_EQ(run_cli("chimera-rt --traces " + traces + " --benchmarks nosuch", out), 2);
  EXPECT_NE(out.find("--benchmarks: no kernels 'nosuch.*'"), std::string::npos) << out;
  EXPECT_EQ(run_cli("chimera-rt --traces " + traces + " --benchmarks bp --set latency_limit", out), 2);
  EXPECT_NE(out.find("expected PARAM=VALUE"), std::string::npos) << out;
  EXPECT_EQ(run_cli("chimera-rt --traces " + traces + " --benchmarks bp --set drain_cpi=maybe", out), 2);
  EXPECT_NE(out.find("drain_cpi"), std::string::npos) << out;
}

TEST(Cli, GeneratedRealtimeScenarioValidatesAndSimulates) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpusched_rt_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string traces = std::string(GPUSCHED_TRACES_DIR) + "/chimera";
  std::string out;
  ASSERT_EQ(
      run_cli("gen chimera-rt --traces " + traces + " --benchmark hs --periods 3 --out " + (dir / "hs.toml").string(),
              out),
      0)
      << out;
  EXPECT_TRUE(std::filesystem::exists(dir / "rt.kernel.toml"));
  ASSERT_EQ(run_cli("validate " + (dir / "hs.toml").string(), out), 0) << out;
  ASSERT_EQ(run_cli("sim --workload " + (dir / "hs.toml").string() + " --policy chimera,preempt-drain", out), 0) << out;
  EXPECT_NE(out.find("chimera "), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, SimDetailsPrintPolicyFigures) {
  std::string out;
  ASSERT_EQ(run_cli("sim --workload " + std::string(GPUSCHED_TEST_DATA) +
                        "/small/small.toml --policy chimera,timeshare,fifo --details",
                    out),
            0)
      << out;
  EXPECT_NE(out.find("chimera: preempted_sms="), std::string::npos) << out;
  EXPECT_NE(out.find("timeshare: microkernels="), std::string::npos) << out;
  EXPECT_EQ(out.find("fifo: "), std::string::npos) << out;
}

// crossval on the shipped H100 co-runs: every model's held-out error (equivalent's included) and the Markov model's IPC
// against the recordings, on the nine suite kernels whose profiles carry counted instructions
// (scripts/ncu-to-profiles.py). markov must differ from none (it has inputs now) and the measured IPC of mriq-s1 alone
// must be near the profiler's 3.56 (recorded blocks x instructions / (SMs x span x clock)).
TEST(Cli, CrossvalPredictsHeldOutPairsAndReportsMarkovIpc) {
  std::string out;
  ASSERT_EQ(run_cli("crossval --coruns " + std::string(GPUSCHED_TRACES_DIR) +
                        "/live/h100/coruns.csv --model none --model markov --model equivalent --ipc-detail",
                    out),
            0)
      << out;
  EXPECT_NE(out.find("markov IPC per SM, each kernel alone (9 points)"), std::string::npos) << out;
  EXPECT_NE(out.find("markov IPC per SM, pairs together"), std::string::npos) << out;
  const auto none = out.find("\nnone "), markov = out.find("\nmarkov ");
  ASSERT_NE(none, std::string::npos);
  ASSERT_NE(markov, std::string::npos);
  EXPECT_NE(out.substr(none + 1, 40).substr(12), out.substr(markov + 1, 40).substr(12)) << "markov = none";
  // equivalent's weights come from native runs, so every co-run is held out from its fit: it has a row, and the
  // records' own noise (three repeats) is printed beside the models.
  const auto equivalent = out.find("\nequivalent ");
  ASSERT_NE(equivalent, std::string::npos) << out;
  EXPECT_EQ(out.substr(equivalent, 60).find("no held-out rule"), std::string::npos) << out;
  EXPECT_NE(out.find("\nrepeats "), std::string::npos) << out;
  const auto mriq = out.find("mriq-s1 r=8");
  ASSERT_NE(mriq, std::string::npos) << out;
  const double measured = std::stod(out.substr(out.find("measured", mriq) + 8));
  EXPECT_NEAR(measured, 3.56, 0.15);
}

// Kernelet's model with each kernel's R_m calibrated to its recording (`markov:inputs=calibrated`): alone it matches
// every recording by construction, so what it predicts is the pairs; on the shipped H100 co-runs their IPC error is
// about half the counted inputs' (1.42 against 0.77 of a peak of 4 when measured; docs/interference.md).
namespace {

// The mean absolute IPC error crossval prints after the report headed `head` (NaN where it printed none).
double ipc_error(const std::string& out, const std::string& head) {
  const auto at = out.find(head);
  EXPECT_NE(at, std::string::npos) << out;
  const auto err = out.find("mean absolute error ", at);
  if (at == std::string::npos || err == std::string::npos) return std::nan("");
  return std::stod(out.substr(err + 20, 5));
}

}  // namespace

TEST(Cli, CrossvalCalibratedMarkovMatchesEachKernelAloneAndPredictsPairsCloser) {
  std::string out;
  ASSERT_EQ(run_cli("crossval --coruns " + std::string(GPUSCHED_TRACES_DIR) +
                        "/live/h100/coruns.csv --model markov --model markov:inputs=calibrated",
                    out),
            0)
      << out;
  EXPECT_NE(out.find("\nmarkov:inputs=calibrated "), std::string::npos) << "a held-out row";
  EXPECT_NE(out.find("markov:inputs=calibrated IPC per SM, each kernel alone (9 points): mean absolute error 0.000"),
            std::string::npos)
      << out;
  const auto pairs_error = [&](const std::string& model) {
    return ipc_error(out, model + " IPC per SM, pairs together");
  };
  EXPECT_LT(pairs_error("markov:inputs=calibrated"), 0.75 * pairs_error("markov"));
}

// The chain's split of an SM's blocks over its four schedulers, judged on what no calibration sees: each kernel
// alone at its lower recorded residencies (1 block and about half its highest). Blocks split (the paper's text):
// one block is a quarter of a one-block virtual SM, so the SM issues at most one scheduler's worth (mriq-s1 at one
// block: 0.73 predicted, 1.79 recorded); warps split (the hardware's): 1.67. Mean absolute error over the 18
// points, calibrated inputs: 0.371 and 0.212 (docs/interference.md, "Blocks or warps over the schedulers").
TEST(Cli, CrossvalWarpsSplitPredictsEachKernelsLowerResidenciesCloser) {
  std::string out;
  ASSERT_EQ(run_cli("crossval --coruns " + std::string(GPUSCHED_TRACES_DIR) +
                        "/live/h100/coruns.csv --model markov:inputs=calibrated --model "
                        "markov:inputs=calibrated,split=warps --model markov:split=bad --ipc-detail",
                    out),
            0)
      << out;
  EXPECT_NE(out.find("\nmarkov:inputs=calibrated,split=warps "), std::string::npos) << "a held-out row";
  EXPECT_NE(out.find("markov:split=bad          -          -   (no held-out rule"), std::string::npos) << out;
  const auto lower_error = [&](const std::string& model) {
    return ipc_error(out, model + " IPC per SM, each kernel alone at its lower recorded residencies (18 points)");
  };
  EXPECT_LT(lower_error("markov:inputs=calibrated,split=warps"), 0.7 * lower_error("markov:inputs=calibrated"));
  const auto mriq = out.find("  mriq-s1 r=1 ", out.find("markov:inputs=calibrated,split=warps IPC per SM, each "
                                                        "kernel alone at its lower"));
  ASSERT_NE(mriq, std::string::npos);
  EXPECT_GT(std::stod(out.substr(out.find("predicted", mriq) + 10, 6)), 1.0) << "more than one scheduler's worth";
}

// A model whose fit is made elsewhere (another co-run file, another order) has no held-out rule: crossval says so
// instead of printing `none`'s figures, and writes no held-out row for it. --profiles finds the kernels' profiles
// for co-runs kept outside traces/ (the markov rule needs their counts).
TEST(Cli, CrossvalSaysWhichModelsHaveNoHeldOutRule) {
  const std::string csv = (std::filesystem::temp_directory_path() / "gpusched_crossval_rule.csv").string();
  std::string out;
  ASSERT_EQ(run_cli("crossval --coruns " + std::string(GPUSCHED_TRACES_DIR) +
                        "/../docs/interference/placement/coruns-near-h100.csv --profiles " +
                        std::string(GPUSCHED_TRACES_DIR) +
                        "/live/h100 --model none --model markov --model "
                        "corun:order=older --csv " +
                        csv,
                    out),
            0)
      << out;
  EXPECT_NE(out.find("corun:order=older          -          -   (no held-out rule"), std::string::npos) << out;
  const auto none = out.find("\nnone "), markov = out.find("\nmarkov ");
  ASSERT_NE(markov, std::string::npos);
  EXPECT_NE(out.substr(none + 1, 40).substr(12), out.substr(markov + 1, 40).substr(12)) << "markov found no profiles";
  const std::string rows = gpusched::test::read_file(csv);
  EXPECT_NE(rows.find("markov,0,h100,held-out-pairs"), std::string::npos) << rows;
  EXPECT_EQ(rows.find("corun:order=older"), std::string::npos) << rows;
}

// Session 26's records carry each victim's own residency as placed: moving the reference there (the default) changes
// the fitted models' held-out figures against the launched count; --worst lists rows; a third value is refused.
TEST(Cli, CrossvalMovesTheReferenceToTheVictimsPlacedResidency) {
  const std::string records = std::string(GPUSCHED_TRACES_DIR) + "/../docs/interference/coruns-h100.session26.csv";
  const std::string common =
      "crossval --coruns " + records + " --profiles " + std::string(GPUSCHED_TRACES_DIR) + "/live/h100 --model age";
  std::string placed, launched, worst, bad;
  ASSERT_EQ(run_cli(common, placed), 0) << placed;
  ASSERT_EQ(run_cli(common + " --victim-residency launched", launched), 0) << launched;
  const auto age_row = [](const std::string& out) { return out.substr(out.find("\nage "), 40); };
  EXPECT_NE(age_row(placed), age_row(launched));
  ASSERT_EQ(run_cli(common + " --worst 2", worst), 0) << worst;
  const auto list = worst.find("age: the 2 worst held-out rows");
  ASSERT_NE(list, std::string::npos) << worst;
  const auto rows = worst.substr(list, worst.find("\nrepeats", list) - list);
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 2) << rows;
  EXPECT_NE(rows.find(" own "), std::string::npos) << rows;
  EXPECT_NE(run_cli(common + " --victim-residency nominal", bad), 0) << bad;
}

// --interference takes a model's parameters as "name:key=value,key=value": the two rules of equivalent's fallback
// give different predictions of bursts-h100 (its kernels have unfitted pairs), the default spelt out gives the
// default's, and a malformed spec or an unknown parameter is an error naming it.
TEST(Cli, InterferenceTakesTheModelsParameters) {
  const std::string w = std::string(GPUSCHED_TRACES_DIR) + "/workloads/bursts-h100.toml";
  auto makespan_line = [&](const std::string& model) {
    std::string out;
    EXPECT_EQ(run_cli("sim -w " + w + " -p fifo --interference " + model, out), 0) << out;
    const auto at = out.find("\nfifo ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at + 1) - at);
  };
  const std::string by_default = makespan_line("equivalent");
  ASSERT_FALSE(by_default.empty());
  EXPECT_EQ(makespan_line("equivalent:fallback=median"), by_default);
  EXPECT_NE(makespan_line("equivalent:fallback=value"), by_default);
  EXPECT_EQ(makespan_line("equivalent:fallback=value,unfitted=1"), makespan_line("equivalent:fallback=value"));
  std::string out;
  EXPECT_NE(run_cli("sim -w " + w + " -p fifo --interference equivalent:fallback", out), 0);
  EXPECT_NE(out.find("expected name:key=value"), std::string::npos) << out;
  EXPECT_NE(run_cli("sim -w " + w + " -p fifo --interference none:x=1", out), 0);
  EXPECT_NE(out.find("unknown parameter 'x'"), std::string::npos) << out;
}

// kernelet-model --inputs calibrated: sad-s1's R_m set so that the chain alone at its recorded 8 blocks a SM issues at
// its recording's IPC (2.870: recorded blocks x counted instructions / (SMs x span x clock)); counted, the chain
// predicts 0.486 (docs/interference.md, "Kernelet's model calibrated on each kernel alone"). A bad value is refused.
TEST(Cli, KerneletModelPrintsCalibratedInputs) {
  const std::string sad = std::string(GPUSCHED_TRACES_DIR) + "/live/h100/sad-s1.kernel.toml";
  std::string out;
  ASSERT_EQ(run_cli("kernelet-model " + sad + " --inputs calibrated", out), 0) << out;
  EXPECT_NE(out.find("calibrated inputs"), std::string::npos) << out;
  EXPECT_NE(out.find("| sad-s1 | - | - | 0.0106 | 0% | 8 | 2.870 |"), std::string::npos) << out;
  ASSERT_EQ(run_cli("kernelet-model " + sad, out), 0) << out;
  EXPECT_NE(out.find("| sad-s1 | - | - | 0.1105 | 0% | 8 | 0.486 |"), std::string::npos) << out;
  EXPECT_NE(run_cli("kernelet-model " + sad + " --inputs measured", out), 0);
  // With each block's warps over every scheduler the calibration finds another R_m for the same recorded IPC.
  ASSERT_EQ(run_cli("kernelet-model " + sad + " --inputs calibrated --split warps", out), 0) << out;
  EXPECT_NE(out.find("warps over the schedulers"), std::string::npos) << out;
  EXPECT_NE(out.find("| sad-s1 | - | - | 0.0170 | 0% | 8 | 2.870 |"), std::string::npos) << out;
  EXPECT_NE(run_cli("kernelet-model " + sad + " --split threads", out), 0);
}
