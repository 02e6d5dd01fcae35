#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/cli/commands.h"

namespace gpusched::cli {

LoadedWorkload load_workload_and_gpu(const std::string& path, const std::string& gpu_override) {
  Warnings warnings;
  auto loaded = sim::load_workload_and_gpu(path, gpu_override, &warnings, "--gpu", "give one with --gpu");
  print_warnings(warnings);
  return loaded;
}

void print_warnings(const Warnings& w) {
  for (const auto& line : w) std::fprintf(stderr, "%s\n", line.c_str());
}

std::map<std::string, std::string> parse_sets(const std::vector<std::string>& sets) {
  std::map<std::string, std::string> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--set: expected PARAM=VALUE, found " + s);
    out[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return out;
}

void parallel_for(std::size_t jobs, int threads, const std::function<void(std::size_t)>& task) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < jobs;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

std::map<std::string, std::pair<TimeNs, TimeNs>> span_by_tenant(const Workload& w, const RunResult& r) {
  std::map<std::string, std::pair<TimeNs, TimeNs>> span;
  for (std::size_t l = 0; l < w.launches.size(); ++l) {
    auto [it, fresh] = span.try_emplace(w.launches[l].tenant, r.launches[l].release, r.launches[l].finish);
    if (!fresh) {
      it->second.first = std::min(it->second.first, r.launches[l].release);
      it->second.second = std::max(it->second.second, r.launches[l].finish);
    }
  }
  return span;
}

}  // namespace gpusched::cli
