// gpusched replay-parts: a stored validation's plan of pieces replayed in parts beside its execution. The stores are
// written here: chimera's plan of validate-h200 (it switches out and flushes blocks) stored as the plan and, with the
// plan's own pieces, as its "execution".
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/content_hash.h"
#include "core/store/store.h"
#include "sim/run_identity.h"
#include "sim/runner.h"
#include "test_helpers.h"

using namespace gpusched;
using gpusched::test::run_cli;

namespace {
const std::string kWorkload = std::string(GPUSCHED_TRACES_DIR) + "/workloads/validate-h200.toml";

std::string temp_store(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("gpusched_rp_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove(p);
  return p.string();
}

// Writes `policy`'s plan of validate-h200 and, when `validation`, the same pieces as a live run validating it.
std::string store_of(const std::string& name, const std::string& policy, bool validation) {
  const auto path = temp_store(name);
  const auto loaded = sim::load_workload_and_gpu(kWorkload, "", nullptr, "--gpu", "");
  sim::RunOptions o;
  o.policy = policy;
  o.interference = sim::resolve_interference("auto", loaded.workload);
  sim::AloneTimeCache alone;
  auto info = sim::describe_sim_run(loaded.workload, workload_content_hash(loaded.workload), loaded.gpu, o);
  info.workload_file = kWorkload;
  auto plan = sim::run_for_store(loaded.workload, loaded.gpu, o, info, alone);
  auto live = plan;
  live.info.mode = "live";
  live.info.key += "-live";
  auto s = store::Store::open(path);
  const auto planned = s.write_run(plan);
  if (validation) s.write_run(live, nullptr, {}, planned);
  return path;
}
}  // namespace

TEST(ReplayPartsCli, AnExecutionAtThePlansOwnTimesReplaysAsThePlannedPieces) {
  // The "execution" is the plan itself, so its errors are 0, and with every piece at its executed piece's time the
  // replay is the one at the planned times, column for column.
  const auto db = store_of("same.db", "chimera", true);
  std::string out;
  ASSERT_EQ(run_cli("replay-parts --db " + db + " --pieces planned,measured,carried --context cover", out), 0) << out;
  EXPECT_NE(out.find("0 blocks ran in more or fewer pieces than planned"), std::string::npos) << out;
  const auto at = out.find("\nhistogram ");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string row = out.substr(at + 1, out.find('\n', at + 1) - at - 1);
  EXPECT_NE(row.find("+0.0%"), std::string::npos) << row;  // executed
  // planned cover and measured cover agree
  std::istringstream fields(row);
  std::string id, planned_time, unit, executed, planned_cover, measured_cover, carried_cover;
  fields >> id >> planned_time >> unit >> executed >> planned_cover >> measured_cover >> carried_cover;
  EXPECT_EQ(planned_cover, measured_cover) << row;
  EXPECT_NE(out.find("|error| median / p90"), std::string::npos);
  // Carried out with each block's work from the executed pieces, the same again; and waiting for predecessors
  // (validate-h200 has none) changes nothing.
  ASSERT_EQ(run_cli("replay-parts --db " + db + " --pieces carried,carried-measured --context claimed", out), 0) << out;
  const std::string summary = out.substr(out.find("|error| median / p90"));
  std::istringstream s1(summary);
  std::string w1, w2, w3, w4, exec_m, slash1, exec_p, carried_m, slash2, carried_p, cm_m, slash3, cm_p;
  s1 >> w1 >> w2 >> w3 >> w4 >> exec_m >> slash1 >> exec_p >> carried_m >> slash2 >> carried_p >> cm_m >> slash3 >>
      cm_p;
  EXPECT_EQ(exec_m, "0.0") << summary;
  EXPECT_EQ(carried_m + carried_p, cm_m + cm_p) << summary;
  std::string with_predecessors;
  ASSERT_EQ(run_cli("replay-parts --db " + db + " --pieces carried,carried-measured --context claimed --predecessors",
                    with_predecessors),
            0);
  EXPECT_EQ(with_predecessors.substr(with_predecessors.find("|error|")), summary);
  // --pieces-csv writes one file a column.
  const auto prefix = temp_store("pieces");
  ASSERT_EQ(run_cli("replay-parts --db " + db + " --pieces planned --context cover --pieces-csv " + prefix, out), 0);
  EXPECT_TRUE(std::filesystem::exists(prefix + ".planned-cover.csv"));
  std::filesystem::remove(prefix + ".planned-cover.csv");
  std::filesystem::remove(db);
}

TEST(ReplayPartsCli, BadStoresAreInputErrors) {
  std::string out;
  EXPECT_EQ(run_cli("replay-parts --db /nonexistent/x.db", out), 2);
  EXPECT_NE(out.find("--db /nonexistent/x.db: no such file"), std::string::npos) << out;
  const auto none = store_of("none.db", "chimera", false);
  EXPECT_EQ(run_cli("replay-parts --db " + none, out), 2);
  EXPECT_NE(out.find("the store holds no validation"), std::string::npos) << out;
  EXPECT_EQ(run_cli("replay-parts --db " + none + " --pieces nosuch", out), 2);
  const auto fifo = store_of("fifo.db", "fifo", true);
  EXPECT_EQ(run_cli("replay-parts --db " + fifo, out), 2);
  EXPECT_NE(out.find("runs every block in one piece"), std::string::npos) << out;
  EXPECT_EQ(run_cli("replay-parts --db " + fifo + " --live 99", out), 2);
  EXPECT_NE(out.find("--live 99: not a validation's live run"), std::string::npos) << out;
  std::filesystem::remove(none);
  std::filesystem::remove(fifo);
}
