#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/timeline.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::test;

TEST(Timeline, PerfettoTracksNestAndCountersFollowOccupancy) {
  const auto w = make_workload("w", {kernel("A", 12, 512, {100, 130, 70}), kernel("B", 5, 256, {40})},
                               {launch("a", 0, 0), launch("b", 1, 30)});
  const auto gpu = gpu_with_sms("h100", 2);
  const auto r = run(w, gpu, "fifo");
  const auto path = (std::filesystem::temp_directory_path() / "tl.json").string();
  sim::write_timeline(path, r.schedule, w, gpu);
  const auto doc = nlohmann::json::parse(read_file(path));
  std::map<int, std::vector<std::pair<double, double>>> tracks;
  int counters = 0, names = 0, bars = 0;
  for (const auto& e : doc["traceEvents"]) {
    const auto ph = e["ph"].get<std::string>();
    if (ph == "X") {
      tracks[e["tid"].get<int>()].emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
      ++bars;
    }
    if (ph == "C") ++counters;
    if (ph == "M" && e["name"] == "thread_name") ++names;
  }
  EXPECT_EQ(bars, 17);
  EXPECT_GT(counters, 0);
  EXPECT_EQ(names, static_cast<int>(tracks.size()));
  for (auto& [tid, spans] : tracks) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first) << "track " << tid;
  }
}

TEST(Timeline, CsvHasOneRowPerPiece) {
  const auto w = make_workload("w", {kernel("A", 3, 1024, {10})}, {launch("a", 0, 0)});
  const auto r = run(w, gpu_with_sms("h100", 1), "fifo");
  const auto path = (std::filesystem::temp_directory_path() / "tl.csv").string();
  sim::write_timeline(path, r.schedule, w, gpu_with_sms("h100", 1));
  EXPECT_EQ(read_file(path),
            "launch,kernel,block,gpu,sm,start_ns,end_ns,outcome\n"
            "a,A,0,0,0,0,10,completed\n"
            "a,A,1,0,0,0,10,completed\n"
            "a,A,2,0,0,10,20,completed\n");
}
