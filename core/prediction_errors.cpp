#include "core/prediction_errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/store/run_comparison.h"

namespace gpusched {

double nearest_rank(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size(), std::max<std::size_t>(rank, 1)) - 1];
}

double raw_equivalent_ns(const Workload& w, const BlockPiece& piece) {
  const double d = static_cast<double>(piece.end - piece.start);
  const RecordSet* set = w.kernel_of(static_cast<std::size_t>(piece.launch)).primary_records();
  if (!set) return d;
  const auto blk = static_cast<std::size_t>(piece.block);
  const std::vector<TimeNs>& raw = set->raw_by_block();
  const std::vector<TimeNs>& slot = set->slot_by_block();
  if (blk < raw.size() && blk < slot.size() && raw[blk] >= 0 && slot[blk] > 0)
    return d * static_cast<double>(raw[blk]) / static_cast<double>(slot[blk]);
  return d;
}

PredictionErrors prediction_errors(const Workload& w, const RunResult& measured, const RunResult& predicted) {
  if (measured.launches.size() != predicted.launches.size() || measured.launches.size() != w.launches.size())
    throw std::invalid_argument("prediction_errors: the runs do not have the workload's launches");
  PredictionErrors e;
  e.launches = w.launches.size();
  std::vector<double> errors;
  for (std::size_t i = 0; i < e.launches; ++i) {
    const auto m = static_cast<double>(measured.launches[i].turnaround);
    const auto p = static_cast<double>(predicted.launches[i].turnaround);
    errors.push_back(m > 0 ? 100.0 * std::abs(m - p) / m : 0.0);
  }
  e.turnaround_median_pct = nearest_rank(errors, 0.5);
  e.turnaround_p90_pct = nearest_rank(errors, 0.9);
  e.turnaround_max_pct = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  const auto mm = static_cast<double>(measured.metrics.makespan), pm = static_cast<double>(predicted.metrics.makespan);
  e.makespan_pct = mm > 0 ? 100.0 * std::abs(mm - pm) / mm : 0.0;
  std::vector<double> a, b;
  for (const auto& piece : measured.schedule.pieces) a.push_back(static_cast<double>(piece.end - piece.start));
  for (const auto& piece : predicted.schedule.pieces) b.push_back(raw_equivalent_ns(w, piece));
  e.block_ks = a.empty() || b.empty() ? 0.0 : store::ks_statistic(a, b);
  return e;
}

std::string native_csv_row(const std::string& workload, const std::string& gpu, const std::string& policy, int repeat,
                           const PredictionErrors& e) {
  return fmt::format("{},{},{},{},{},{:.2f},{:.2f},{:.2f},{:.2f},{:.4f}", workload, gpu, policy, repeat, e.launches,
                     e.turnaround_median_pct, e.turnaround_p90_pct, e.turnaround_max_pct, e.makespan_pct, e.block_ks);
}

void append_csv_rows(const std::string& path, const std::string& header, const std::vector<std::string>& rows) {
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0;
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot open for appending", path));
  if (fresh) out << header << '\n';
  for (const auto& r : rows) out << r << '\n';
  if (!out) throw std::runtime_error(fmt::format("{}: write failed", path));
}

}  // namespace gpusched
