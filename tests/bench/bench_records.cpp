// Block-record reader throughput: records per second streamed from a CSV file (target: 2 million/s on one
// core of a 2-core development machine). docs/performance.md has the figures and the command.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "core/block_records_csv.h"

using namespace gpusched;

namespace {
const std::string& records_file() {
  static const std::string path = [] {
    const auto p = (std::filesystem::temp_directory_path() / "gpusched_bench_records.csv").string();
    std::vector<BlockRecord> r;
    const std::int64_t n = 2'000'000;
    r.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      r.push_back(BlockRecord{i, static_cast<int>(i % 132), i * 731, i * 731 + 15000 + i % 977});
    write_block_records(p, r);
    return p;
  }();
  return path;
}
}  // namespace

static void BM_BlockRecordReader(benchmark::State& state) {
  const auto& path = records_file();
  BlockRecordLimits lim;
  lim.block_count = 2'000'000;
  lim.sm_count = 132;
  std::int64_t total = 0;
  for (auto _ : state) {
    BlockRecordReader reader(path, lim);
    BlockRecord r;
    std::int64_t n = 0;
    TimeNs sum = 0;
    while (reader.next(r)) {
      ++n;
      sum += r.end - r.start;
    }
    benchmark::DoNotOptimize(sum);
    total += n;
  }
  state.SetItemsProcessed(total);
  state.counters["records_per_s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BlockRecordReader)->Unit(benchmark::kMillisecond)->UseRealTime();
