// The co-run slowdown coefficients fitted from co-run records (core/corun_records.h), used by the `corun`
// interference model and by `gpusched crossval` (docs/interference.md, "Measured co-runs").
//
// A victim block of suite kernel A beside blocks of partner kernels runs slower than alone by
//   slowdown = exp(sum over partners B of beta(A, B) x x_B)
// where x_B measures how much of the SM B takes, in one of two forms:
//   occupancy: x_B = B's blocks on the SM / B's occupancy limit (1: B alone would fill the SM);
//   ratio:     x_B = that share / A's own share (A's blocks on the SM / A's occupancy limit), so that a partner
//              weighs more against fewer of the victim's own blocks (a proportional share of what they contend for).
// beta(A, B) is the least-squares slope through the origin of ln(corun / alone) against x_B over the recorded pair's
// rows (every mix, repeat and launch order; or, with CoRunOrder::PartnerFirst, only the rows where B was launched
// first, so that B's blocks were the older ones on the SM). The slowdowns measured run from 1.0 to over 20x, so the fit
// is in logarithms (a 2x error counts the same at 1.2x as at 12x). A pair never recorded gets the product rule beta =
// s_A x p_B / g, where s_A (A's sensitivity) is the mean of A's recorded betas, p_B (B's pressure) the mean of the
// betas with B as partner, and g the mean of all; where A or B has none, the other's mean or g stands in. A kernel
// beside another launch of itself has beta 0 (its own recording holds that). docs/interference.md has the
// cross-validation that chose these forms.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/corun_records.h"
#include "sim/params.h"

namespace gpusched::sim {

// The `victim_residency` parameter of the models fitted from co-runs: placed (default) fits each record against the
// victim alone at the residency it was placed at where the record measured it (core/corun_residency.h), launched
// against its launch's blocks per SM (every record before that column).
ParamSpec victim_residency_param();
// Its value in `p`; throws std::invalid_argument naming `model` for anything but placed or launched.
bool victim_residency_placed(const Params& p, const std::string& model);

enum class Exposure { Life, Start };  // which measured exposure the fit uses
enum class CoRunForm { Occupancy, Ratio };
// Which rows of a pair the fit uses: every launch order, or only those where the partner was launched first (its
// blocks older than the victim's on the SM: what a block dispatched beside resident co-runners meets).
enum class CoRunOrder { Both, PartnerFirst };

// Whether a record's (single) partner was launched before its victim, from the run's name ("A+B@.../ab": A first;
// "/ba": B first). nullopt when the name does not say (three kernels, or another naming).
std::optional<bool> partner_launched_first(const CoRunRecord& r);

// x_B as the form defines it, from the partner's blocks and limit and the victim's own blocks and limit.
double corun_share(CoRunForm form, double partner_blocks, int partner_limit, double own_blocks, int own_limit);

class CoRunCoefficients {
 public:
  CoRunCoefficients() = default;
  // Fits from the rows with exactly one partner; rows of three kernels are left for checking additivity.
  // `use(victim, partner)` (suite kernel names) can hold pairs out of the fit (cross-validation).
  explicit CoRunCoefficients(const std::vector<CoRunRecord>& records, CoRunForm form = CoRunForm::Occupancy,
                             Exposure exposure = Exposure::Life,
                             const std::function<bool(const std::string&, const std::string&)>& use = {},
                             CoRunOrder order = CoRunOrder::Both);

  // beta for suite kernels (victim, partner), recorded or by the product rule.
  double beta(const std::string& victim, const std::string& partner) const;
  bool recorded(const std::string& victim, const std::string& partner) const {
    return fitted_.count({victim, partner}) > 0;
  }
  bool empty() const { return fitted_.empty(); }
  const std::map<std::pair<std::string, std::string>, double>& fitted() const { return fitted_; }

  // The predicted co-run slowdown of a record's victim from its partners' exposures.
  double predict(const CoRunRecord& r, Exposure exposure) const;
  CoRunForm form() const { return form_; }

 private:
  CoRunForm form_ = CoRunForm::Occupancy;
  std::map<std::pair<std::string, std::string>, double> fitted_;
  std::map<std::string, double> sensitivity_, pressure_;
  double global_ = 0;
};

}  // namespace gpusched::sim
