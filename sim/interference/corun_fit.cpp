#include "sim/interference/corun_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace gpusched::sim {
namespace {

double share_of(const CoRunRecord& r, const CoRunPartner& p, CoRunForm form, Exposure e) {
  return corun_share(form, e == Exposure::Life ? p.exposure : p.exposure_at_start, p.full, r.victim_blocks_per_sm,
                     r.victim_full);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

}  // namespace

ParamSpec victim_residency_param() {
  return {"victim_residency", ParamType::String, "placed",
          "the co-runs' reference: placed (the victim alone at the residency the hardware gave it, where recorded) or "
          "launched (at its launch's blocks per SM)"};
}

bool victim_residency_placed(const Params& p, const std::string& model) {
  const std::string& v = p.get_string("victim_residency");
  if (v != "placed" && v != "launched")
    throw std::invalid_argument(fmt::format(
        "interference model {}: parameter 'victim_residency' expects placed or launched, found \"{}\"", model, v));
  return v == "placed";
}

double corun_share(CoRunForm form, double partner_blocks, int partner_limit, double own_blocks, int own_limit) {
  const double share = partner_blocks / static_cast<double>(std::max(1, partner_limit));
  if (form == CoRunForm::Occupancy) return share;
  return share * static_cast<double>(std::max(1, own_limit)) / std::max(1.0, own_blocks);
}

std::optional<bool> partner_launched_first(const CoRunRecord& r) {
  if (r.partners.size() != 1) return std::nullopt;
  const auto slash = r.run.rfind('/');
  const auto at = r.run.find('@');
  if (slash == std::string::npos || at == std::string::npos || at > slash) return std::nullopt;
  const std::string order = r.run.substr(slash + 1), kernels = r.run.substr(0, at);
  const auto plus = kernels.find('+');
  if (plus == std::string::npos || (order != "ab" && order != "ba")) return std::nullopt;
  const std::string first = order == "ab" ? kernels.substr(0, plus) : kernels.substr(plus + 1);
  const std::string second = order == "ab" ? kernels.substr(plus + 1) : kernels.substr(0, plus);
  const std::string& partner = r.partners.front().kernel;
  if (partner == first && r.victim == second) return true;
  if (partner == second && r.victim == first) return false;
  return std::nullopt;
}

CoRunCoefficients::CoRunCoefficients(const std::vector<CoRunRecord>& records, CoRunForm form, Exposure exposure,
                                     const std::function<bool(const std::string&, const std::string&)>& use,
                                     CoRunOrder order)
    : form_(form) {
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> sums;  // sum xy, sum xx
  for (const auto& r : records) {
    if (r.partners.size() != 1) continue;
    if (order == CoRunOrder::PartnerFirst && partner_launched_first(r) != std::optional<bool>(true)) continue;
    const std::string a = suite_kernel_of(r.victim), b = suite_kernel_of(r.partners.front().kernel);
    if (use && !use(a, b)) continue;
    const double x = share_of(r, r.partners.front(), form, exposure);
    auto& s = sums[{a, b}];
    s.first += x * std::log(r.slowdown());
    s.second += x * x;
  }
  std::map<std::string, std::vector<double>> by_victim, by_partner;
  std::vector<double> all;
  for (const auto& [pair, s] : sums) {
    if (s.second <= 0) continue;  // never exposed: nothing to fit
    const double beta = s.first / s.second;
    fitted_[pair] = beta;
    by_victim[pair.first].push_back(beta);
    by_partner[pair.second].push_back(beta);
    all.push_back(beta);
  }
  for (const auto& [k, v] : by_victim) sensitivity_[k] = mean(v);
  for (const auto& [k, v] : by_partner) pressure_[k] = mean(v);
  global_ = mean(all);
}

double CoRunCoefficients::beta(const std::string& victim, const std::string& partner) const {
  // Another launch of the same kernel is no co-runner: the kernel's own recording, at full residency, already
  // holds what its blocks do to each other.
  if (victim == partner) return 0.0;
  if (const auto it = fitted_.find({victim, partner}); it != fitted_.end()) return it->second;
  const auto s = sensitivity_.find(victim);
  const auto p = pressure_.find(partner);
  const bool has_s = s != sensitivity_.end(), has_p = p != pressure_.end();
  if (has_s && has_p) {
    // The product rule needs a positive scale; where the recorded betas average to nothing or less, the
    // additive form (s + p - g) stands in, which is the same rule in differences.
    if (global_ > 1e-9) return s->second * p->second / global_;
    return s->second + p->second - global_;
  }
  if (has_s) return s->second;
  if (has_p) return p->second;
  return global_;
}

double CoRunCoefficients::predict(const CoRunRecord& r, Exposure exposure) const {
  double exponent = 0.0;
  const std::string a = suite_kernel_of(r.victim);
  for (const auto& p : r.partners) exponent += beta(a, suite_kernel_of(p.kernel)) * share_of(r, p, form_, exposure);
  return std::exp(exponent);
}

}  // namespace gpusched::sim
