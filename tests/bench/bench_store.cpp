// Result store speed: one run of 1 million block rows written in one transaction (target: under 2 s), and
// read back. Each iteration writes into a fresh store file on the temporary file system.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "core/store/store.h"

using namespace gpusched;

namespace {

store::RunRecord million_block_run() {
  store::RunRecord r;
  r.info.key = "sim-bench";
  r.info.workload = "bench";
  r.info.policy = "fifo";
  r.info.blocks_kept = true;
  r.schedule.pieces.resize(1'000'000);
  for (std::size_t i = 0; i < r.schedule.pieces.size(); ++i) {
    auto& p = r.schedule.pieces[i];
    p.launch = static_cast<std::int32_t>(i % 64);
    p.block = static_cast<std::int32_t>(i / 64);
    p.sm = static_cast<std::int16_t>(i % 132);
    p.start = static_cast<TimeNs>(i) * 100;
    p.end = p.start + 10'000;
  }
  r.info.piece_count = static_cast<std::int64_t>(r.schedule.pieces.size());
  return r;
}

std::string bench_path() {
  return (std::filesystem::temp_directory_path() / ("gpusched_bench_store_" + std::to_string(getpid()) + ".db"))
      .string();
}

void remove_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void BM_StoreWriteMillionBlocks(benchmark::State& state) {
  const auto run = million_block_run();
  const auto path = bench_path();
  for (auto _ : state) {
    state.PauseTiming();
    remove_store(path);
    auto s = store::Store::open(path);
    state.ResumeTiming();
    benchmark::DoNotOptimize(s.write_run(run));
  }
  remove_store(path);
  state.counters["rows/s"] = benchmark::Counter(1e6, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StoreWriteMillionBlocks)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreReadMillionBlocks(benchmark::State& state) {
  const auto path = bench_path();
  remove_store(path);
  std::int64_t id = 0;
  {
    auto s = store::Store::open(path);
    id = s.write_run(million_block_run());
  }
  const auto s = store::Store::open(path, store::Store::Mode::ReadOnly);
  for (auto _ : state) benchmark::DoNotOptimize(s.schedule(id).pieces.data());
  remove_store(path);
  state.counters["rows/s"] = benchmark::Counter(1e6, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StoreReadMillionBlocks)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
