#include "sim/interference/age_fit.h"

#include <algorithm>
#include <cmath>

#include "core/markov_calibration.h"
#include "core/markov_model.h"
#include "core/occupancy.h"
#include "core/prediction_errors.h"
#include "sim/interference/corun_fit.h"

namespace gpusched::sim {

namespace {
constexpr double kMaxUtilisation = 0.97;  // older groups never take every issue slot (ln(1 - u) stays finite)

double utilisation_of_set(const RecordSet& set, double instructions, const GpuSpec& gpu, double peak_ipc) {
  return kernelet::recorded_ipc(set, instructions, gpu).value_or(0.0) / peak_ipc;
}
}  // namespace

double issue_utilisation(const KernelProfile& k, const GpuSpec& gpu, double blocks_per_sm) {
  if (!k.instructions_per_block || k.record_sets.empty() || blocks_per_sm <= 0) return 0.0;
  const double peak = kernelet::sm_model_for(gpu).peak_ipc;
  // (residency, utilisation) points in residency order; linear from (0, 0) to the first, flat past the last.
  double prev_r = 0, prev_u = 0;
  for (const auto& set : k.record_sets) {
    const double u = utilisation_of_set(set, *k.instructions_per_block, gpu, peak);
    if (blocks_per_sm <= set.residency) {
      const double t = (blocks_per_sm - prev_r) / (set.residency - prev_r);
      return std::min(kMaxUtilisation, prev_u + t * (u - prev_u));
    }
    prev_r = set.residency;
    prev_u = u;
  }
  return std::min(kMaxUtilisation, prev_u);
}

double age_log_slowdown(const AgeParams& p, double u_victim, double u_older, double memory) {
  double issue = 0.0;
  if (u_older > 0 && u_victim > 0)
    issue = -p.gamma * std::log(1.0 - std::min({kMaxUtilisation, p.u_cap, u_older})) * u_victim / (u_victim + p.kappa);
  return issue + memory;
}

namespace {
struct Row {
  const CoRunRecord* record;
  std::string partner;                          // suite kernel
  double u_victim, u_partner, share, observed;  // observed: ln(corun / alone)
  bool partner_older;
};

std::vector<Row> rows_of(const std::vector<CoRunRecord>& records, const GpuSpec& gpu,
                         const std::function<const KernelProfile*(const std::string&)>& profile,
                         const std::function<bool(const std::string&, const std::string&)>& use) {
  std::vector<Row> rows;
  for (const auto& r : records) {
    if (r.partners.size() != 1 || r.alone_mean_ns <= 0 || r.corun_mean_ns <= 0) continue;
    const auto& partner = r.partners.front();
    const std::string v = suite_kernel_of(r.victim), pk = suite_kernel_of(partner.kernel);
    if (use && !use(v, pk)) continue;
    const KernelProfile* vp = profile(r.victim);
    const KernelProfile* pp = profile(partner.kernel);
    Row row{&r,
            pk,
            vp ? issue_utilisation(*vp, gpu, r.victim_blocks_per_sm) : 0.0,
            pp ? issue_utilisation(*pp, gpu, partner.exposure) : 0.0,
            partner.exposure / std::max(1, partner.full),
            std::log(r.corun_mean_ns / r.alone_mean_ns),
            partner_launched_first(r).value_or(false)};
    rows.push_back(row);
  }
  return rows;
}

double issue_part(const AgeParams& p, const Row& row) {
  return row.partner_older ? age_log_slowdown(p, row.u_victim, row.u_partner, 0.0) : 0.0;
}

}  // namespace

double age_predict(const AgeParams& p, const CoRunRecord& r, const GpuSpec& gpu,
                   const std::function<const KernelProfile*(const std::string&)>& profile) {
  double ln = 0.0;
  const KernelProfile* vp = profile(r.victim);
  const double u_victim = vp ? issue_utilisation(*vp, gpu, r.victim_blocks_per_sm) : 0.0;
  const bool older = partner_launched_first(r).value_or(false);
  double u_older = 0.0, memory = 0.0;
  for (const auto& partner : r.partners) {
    const KernelProfile* pp = profile(partner.kernel);
    if (older && pp) u_older += issue_utilisation(*pp, gpu, partner.exposure);
    memory += p.pressure_of(suite_kernel_of(partner.kernel)) * partner.exposure / std::max(1, partner.full);
  }
  ln = age_log_slowdown(p, u_victim, u_older, memory);
  return std::exp(ln);
}

AgeParams fit_age(const std::vector<CoRunRecord>& records, const GpuSpec& gpu,
                  const std::function<const KernelProfile*(const std::string&)>& profile,
                  const std::function<bool(const std::string&, const std::string&)>& use) {
  const auto rows = rows_of(records, gpu, profile, use);
  double u_cap = 0.0;
  for (const auto& row : rows) u_cap = std::max(u_cap, row.u_partner);
  if (u_cap <= 0.0) u_cap = kMaxUtilisation;
  AgeParams best;
  best.u_cap = u_cap;
  double best_score = INFINITY;
  for (int gi = 0; gi <= 20; ++gi)
    for (const double kappa : {0.0, 0.025, 0.05, 0.1, 0.2, 0.4}) {
      AgeParams p;
      p.gamma = 0.5 + 0.05 * gi;
      p.kappa = kappa;
      p.u_cap = u_cap;
      std::map<std::string, std::pair<double, double>> sums;  // partner -> (sum x*residual, sum x*x)
      for (const auto& row : rows) {
        auto& s = sums[row.partner];
        s.first += row.share * (row.observed - issue_part(p, row));
        s.second += row.share * row.share;
      }
      for (const auto& [k, s] : sums) p.pressure[k] = s.second > 0 ? std::max(0.0, s.first / s.second) : 0.0;
      std::vector<double> errors;
      errors.reserve(rows.size());
      for (const auto& row : rows) {
        const double predicted = std::exp(issue_part(p, row) + p.pressure_of(row.partner) * row.share);
        errors.push_back(std::abs(predicted - std::exp(row.observed)) / std::exp(row.observed));
      }
      const double score = nearest_rank(errors, 0.5) + 0.2 * nearest_rank(errors, 0.9);
      if (score < best_score) {
        best_score = score;
        best = p;
      }
    }
  return best;
}

}  // namespace gpusched::sim
