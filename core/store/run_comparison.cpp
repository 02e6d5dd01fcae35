#include "core/store/run_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/duration_format.h"

namespace gpusched::store {

namespace {

double relative(double value, double reference) {
  if (reference == 0) return value == 0 ? 0.0 : (value > 0 ? 1.0 : -1.0) * INFINITY;
  return (value - reference) / reference;
}

std::vector<double> block_times(const Schedule& s) {
  std::map<std::pair<std::int32_t, std::int32_t>, TimeNs> per_block;
  for (const auto& p : s.pieces) {
    if (p.outcome == PieceOutcome::Flushed || p.outcome == PieceOutcome::Killed) continue;
    per_block[{p.launch, p.block}] += p.end - p.start;
  }
  std::vector<double> out;
  out.reserve(per_block.size());
  for (const auto& [_, t] : per_block) out.push_back(static_cast<double>(t));
  return out;
}

// Per launch: its first piece's start, its last piece's end, its pieces' summed time and its blocks.
struct LaunchSpan {
  TimeNs first = 0, last = 0;
  double busy = 0;
  std::int64_t blocks = 0;
  bool any = false;
};

std::vector<LaunchSpan> launch_spans(const Schedule& s, std::size_t launches) {
  std::vector<LaunchSpan> out(launches);
  // Blocks seen, per launch by block index: a flat mark per block instead of a tree over every (launch, block).
  std::vector<std::vector<char>> seen(launches);
  for (const auto& p : s.pieces) {
    if (p.launch < 0 || static_cast<std::size_t>(p.launch) >= launches || p.block < 0) continue;
    auto& l = out[static_cast<std::size_t>(p.launch)];
    l.first = l.any ? std::min(l.first, p.start) : p.start;
    l.last = l.any ? std::max(l.last, p.end) : p.end;
    l.any = true;
    l.busy += static_cast<double>(p.end - p.start);
    auto& marks = seen[static_cast<std::size_t>(p.launch)];
    const auto b = static_cast<std::size_t>(p.block);
    if (b >= marks.size()) marks.resize(std::max(b + 1, marks.size() * 2), 0);
    if (!marks[b]) {
      marks[b] = 1;
      ++l.blocks;
    }
  }
  return out;
}

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// LaunchComparison's shares (run_comparison.h says how they are defined).
void decompose(const RunRecord& run, const RunRecord& reference, RunComparison& c) {
  const auto spans = launch_spans(run.schedule, run.launches.size());
  const auto ref_spans = launch_spans(reference.schedule, reference.launches.size());
  double start_sum = 0, duration_sum = 0, width_sum = 0;
  int decomposed = 0;
  for (auto& l : c.launches) {
    const auto i = static_cast<std::size_t>(l.index);
    const LaunchSpan &a = spans[i], &b = ref_spans[i];
    const double t_ref = static_cast<double>(l.reference_turnaround);
    if (!a.any || !b.any || a.blocks == 0 || b.blocks == 0 || t_ref <= 0 || !std::isfinite(l.relative_error)) continue;
    const double wait = static_cast<double>(a.first - run.launches[i].outcome.release);
    const double wait_ref = static_cast<double>(b.first - reference.launches[i].outcome.release);
    const double span_ref = static_cast<double>(std::max<TimeNs>(1, b.last - b.first));
    const double width_ref = b.busy / span_ref;
    const double block_time = a.busy / static_cast<double>(a.blocks);
    const double block_time_ref = b.busy / static_cast<double>(b.blocks);
    if (width_ref <= 0) continue;
    l.start_share = (wait - wait_ref) / t_ref;
    l.duration_share = static_cast<double>(b.blocks) * (block_time - block_time_ref) / width_ref / t_ref;
    l.width_share = l.relative_error - *l.start_share - *l.duration_share;
    start_sum += std::abs(*l.start_share);
    duration_sum += std::abs(*l.duration_share);
    width_sum += std::abs(*l.width_share);
    ++decomposed;
  }
  if (decomposed) {
    c.mean_abs_start_share = start_sum / decomposed;
    c.mean_abs_duration_share = duration_sum / decomposed;
    c.mean_abs_width_share = width_sum / decomposed;
  }
}

}  // namespace

double ks_statistic(std::vector<double>& a, std::vector<double>& b) {
  if (a.empty() || b.empty()) return 0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  // Walk both sorted samples; at each distinct value both CDFs step past every copy of it.
  std::size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() || j < b.size()) {
    const double x = j >= b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / static_cast<double>(a.size()) -
                             static_cast<double>(j) / static_cast<double>(b.size())));
  }
  return d;
}

RunComparison compare_runs(const RunRecord& run, const RunRecord& reference) {
  if (run.info.workload_hash != reference.info.workload_hash)
    throw std::invalid_argument("run " + std::to_string(run.info.id) + " (workload " + run.info.workload +
                                ") and run " + std::to_string(reference.info.id) + " (workload " +
                                reference.info.workload + ") are not of the same workload");
  RunComparison c;
  const std::size_t n = std::min(run.launches.size(), reference.launches.size());
  for (std::size_t i = 0; i < n; ++i) {
    LaunchComparison l;
    l.index = static_cast<int>(i);
    l.turnaround = run.launches[i].outcome.turnaround;
    l.reference_turnaround = reference.launches[i].outcome.turnaround;
    l.relative_error = relative(static_cast<double>(l.turnaround), static_cast<double>(l.reference_turnaround));
    c.mean_abs_turnaround_error += std::abs(l.relative_error);
    c.max_abs_turnaround_error = std::max(c.max_abs_turnaround_error, std::abs(l.relative_error));
    c.launches.push_back(l);
  }
  if (n) c.mean_abs_turnaround_error /= static_cast<double>(n);
  decompose(run, reference, c);
  c.makespan_error =
      relative(static_cast<double>(run.metrics.makespan), static_cast<double>(reference.metrics.makespan));
  c.stp_error = relative(run.metrics.stp, reference.metrics.stp);
  c.antt_error = relative(run.metrics.antt, reference.metrics.antt);
  auto a = block_times(run.schedule), b = block_times(reference.schedule);
  c.blocks = a.size();
  c.reference_blocks = b.size();
  if (!a.empty() && !b.empty()) {
    c.block_time_ks = ks_statistic(a, b);  // sorts both
    const double ref_median = median_of_sorted(b);
    c.block_time_median_ratio = ref_median > 0 ? median_of_sorted(a) / ref_median : 0.0;
  }
  return c;
}

namespace {
std::string percent(double x) {
  return std::isfinite(x) ? fmt::format("{:+.2f}%", 100 * x) : "inf";
}
std::string magnitude(double x) {
  return std::isfinite(x) ? fmt::format("{:.2f}%", 100 * x) : "inf";
}
}  // namespace

std::string format_comparison(const RunRecord& a, const RunRecord& b, const RunComparison& c, bool per_launch) {
  std::string out;
  if (per_launch) {
    const bool shares = c.mean_abs_start_share.has_value();
    out += fmt::format("{:<6} {:<16} {:>14} {:>14} {:>9}", "launch", "id", "turnaround", "reference", "error");
    out += shares ? fmt::format(" {:>9} {:>9} {:>9}\n", "start", "blocks", "width") : "\n";
    for (const auto& l : c.launches) {
      out += fmt::format("{:<6} {:<16} {:>14} {:>14} {:>9}", l.index, a.launches[static_cast<std::size_t>(l.index)].id,
                         format_duration(l.turnaround), format_duration(l.reference_turnaround),
                         percent(l.relative_error));
      if (shares && l.start_share)
        out += fmt::format(" {:>9} {:>9} {:>9}", percent(*l.start_share), percent(*l.duration_share),
                           percent(*l.width_share));
      out += "\n";
    }
  }
  out += fmt::format("turnaround error: mean |e| {}, max |e| {}\n", magnitude(c.mean_abs_turnaround_error),
                     magnitude(c.max_abs_turnaround_error));
  if (c.mean_abs_start_share)
    out += fmt::format(
        "turnaround error from: first slot (start) mean |e| {}, block time (blocks) {}, slots held (width) {}\n",
        magnitude(*c.mean_abs_start_share), magnitude(*c.mean_abs_duration_share), magnitude(*c.mean_abs_width_share));
  out += fmt::format("makespan {} ({} against {}), STP {}, ANTT {}\n", percent(c.makespan_error),
                     format_duration(a.metrics.makespan), format_duration(b.metrics.makespan), percent(c.stp_error),
                     percent(c.antt_error));
  if (c.block_time_ks)
    out += fmt::format("block times: KS statistic {:.3f}, median ratio {:.3f} ({} and {} blocks)\n", *c.block_time_ks,
                       *c.block_time_median_ratio, c.blocks, c.reference_blocks);
  else
    out += "block times: not compared (a run was stored without its blocks)\n";
  return out;
}

}  // namespace gpusched::store
