// gpusched crossval: every interference model against measured co-runs and native runs (docs/interference.md,
// "Measured co-runs"). Two scopes:
//  - held-out pairs: the co-run records' kernel pairs are split in two halves (seeded); each half's rows are
//    predicted from coefficients fitted on the other half only (two folds), so `corun` predicts every held-out
//    pair by its rule for never-recorded pairs. The error is that of the victim's mean co-run block time.
//  - native runs (a result store written by `gpusched-live native --db`): each measured run's workload is
//    simulated under fifo with each model; errors of each launch's mean block time, the makespan, and the
//    block-time KS (core/prediction_errors.h), medians over the repeats.
// Writes docs/interference/crossval.csv's rows (--csv) with the columns the issue asks for.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/atomic_file.h"
#include "core/corun_records.h"
#include "core/corun_residency.h"
#include "core/markov_calibration.h"
#include "core/markov_model.h"
#include "core/prediction_errors.h"
#include "core/profile_io.h"
#include "core/store/run_comparison.h"
#include "core/store/store.h"
#include "sim/cli/commands.h"
#include "sim/interference/age_fit.h"
#include "sim/interference/bandwidth.h"
#include "sim/interference/corun_fit.h"
#include "sim/interference/equivalent.h"

namespace gpusched::cli {
namespace {

using sim::CoRunForm;
using sim::Exposure;

struct CrossvalArgs {
  std::string coruns, csv, default_model = "none", profiles;
  std::vector<std::string> measured;
  std::vector<std::string> models{"none", "residency", "markov", "bandwidth", "corun", "corun:form=ratio"};
  std::uint64_t seed = 1;
  std::string victim_residency = "placed";
  bool ipc_detail = false;
  bool per_launch = false;
  bool per_victim = false;
  int worst = 0;
};

struct ModelErrors {
  std::vector<double> block_errors;  // percent
  std::vector<double> makespan, ks;  // percent, statistic; one per measured run
};

double median_of(std::vector<double> v) {
  return nearest_rank(std::move(v), 0.5);
}

class HeldOutPairs {
 public:
  // `placed`: each record's reference moved to the residency its victim was placed at (core/corun_residency.h).
  HeldOutPairs(CoRunTable table, const std::string& dir, const GpuSpec& gpu, std::uint64_t seed, bool placed)
      : table_(std::move(table)), gpu_(gpu), profiles_(read_corun_profiles(table_, dir)) {
    if (placed) move_to_own_residency(table_, profiles_);
    std::set<std::pair<std::string, std::string>> pairs;
    for (const auto& r : table_.records)
      if (r.partners.size() == 1) pairs.insert(unordered(r.victim, r.partners.front().kernel));
    std::vector<std::pair<std::string, std::string>> order(pairs.begin(), pairs.end());
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i = 0; i < order.size(); ++i) fold_[order[i]] = static_cast<int>(i % 2);
    for (int f = 0; f < 2; ++f)
      age_fits_[f] = sim::fit_age(
          table_.records, gpu, [&](const std::string& name) { return profile(name); },
          [&, f](const std::string& a, const std::string& b) {
            const auto it = fold_.find(unordered(a, b));
            return it != fold_.end() && it->second != f;
          });
    for (int f = 0; f < 2; ++f)
      for (CoRunForm form : {CoRunForm::Occupancy, CoRunForm::Ratio})
        for (Exposure e : {Exposure::Life, Exposure::Start})
          fits_[{f, form, e}] =
              sim::CoRunCoefficients(table_.records, form, e, [&, f](const std::string& a, const std::string& b) {
                const auto it = fold_.find(unordered(a, b));
                return it != fold_.end() && it->second != f;  // fit on the other fold
              });
  }

  // Errors (percent) of each held-out single-partner row's co-run block time under `model`.
  std::vector<double> errors(const std::string& model, Exposure exposure = Exposure::Life) const {
    std::vector<double> out;
    for (const auto& r : table_.records) {
      if (r.partners.size() != 1) continue;
      const int f = fold_.at(unordered(r.victim, r.partners.front().kernel));
      const double predicted = r.alone_mean_ns * slowdown(model, r, f, exposure);
      out.push_back(100.0 * std::abs(predicted - r.corun_mean_ns) / r.corun_mean_ns);
    }
    return out;
  }

  // The `n` held-out single-partner rows `model` predicts worst (largest |error|), worst first.
  struct WorstRow {
    const CoRunRecord* record;
    double error = 0, predicted = 0;  // percent (signed), slowdown
  };
  std::vector<WorstRow> worst(const std::string& model, std::size_t n) const {
    std::vector<WorstRow> out;
    for (const auto& r : table_.records) {
      if (r.partners.size() != 1) continue;
      const double s = slowdown(model, r, fold_.at(unordered(r.victim, r.partners.front().kernel)), Exposure::Life);
      out.push_back({&r, 100.0 * (r.alone_mean_ns * s - r.corun_mean_ns) / r.corun_mean_ns, s});
    }
    const auto larger = [](const WorstRow& x, const WorstRow& y) { return std::abs(x.error) > std::abs(y.error); };
    std::stable_sort(out.begin(), out.end(), larger);
    out.resize(std::min(n, out.size()));
    return out;
  }

  // Per victim suite kernel, over its held-out single-partner rows under `model`: how many, the median signed error
  // (percent, negative: predicted faster than measured), and the median measured and predicted slowdowns.
  struct VictimRow {
    std::string victim;
    std::size_t rows = 0;
    double signed_err = 0, measured = 0, predicted = 0;
  };
  std::vector<VictimRow> by_victim(const std::string& model) const {
    std::map<std::string, std::array<std::vector<double>, 3>> v;
    for (const auto& r : table_.records) {
      if (r.partners.size() != 1 || r.alone_mean_ns <= 0 || r.corun_mean_ns <= 0) continue;
      const double s = slowdown(model, r, fold_.at(unordered(r.victim, r.partners.front().kernel)), Exposure::Life);
      auto& x = v[suite_kernel_of(r.victim)];
      x[0].push_back(100.0 * (r.alone_mean_ns * s - r.corun_mean_ns) / r.corun_mean_ns);
      x[1].push_back(r.slowdown());
      x[2].push_back(s);
    }
    std::vector<VictimRow> out;
    for (auto& [name, x] : v) out.push_back({name, x[0].size(), median_of(x[0]), median_of(x[1]), median_of(x[2])});
    return out;
  }

  // The records' own noise, the floor under any model's error: each single-partner row's co-run block time against
  // the mean of the other repeats of the same run and victim (percent of the row's), where there are others.
  std::vector<double> repeat_noise() const {
    std::map<std::pair<std::string, std::string>, std::vector<double>> by_run;
    for (const auto& r : table_.records)
      if (r.partners.size() == 1 && r.corun_mean_ns > 0) by_run[{r.run, r.victim}].push_back(r.corun_mean_ns);
    std::vector<double> out;
    for (const auto& [key, v] : by_run) {
      if (v.size() < 2) continue;
      const double sum = std::accumulate(v.begin(), v.end(), 0.0);
      for (const double x : v) {
        const double others = (sum - x) / static_cast<double>(v.size() - 1);
        out.push_back(100.0 * std::abs(others - x) / x);
      }
    }
    return out;
  }

  // The `age` model's parameters fitted on every pair (what the model fits from this file in a run).
  sim::AgeParams age_fit_all() const {
    return sim::fit_age(table_.records, gpu_, [&](const std::string& name) { return profile(name); });
  }

  // Errors of the three-kernel rows under `corun` fitted on every pair (is the sum of pair slowdowns right?).
  std::vector<double> triple_errors(CoRunForm form) const {
    const sim::CoRunCoefficients all(table_.records, form);
    std::vector<double> out;
    for (const auto& r : table_.records)
      if (r.partners.size() > 1)
        out.push_back(100.0 * std::abs(r.alone_mean_ns * all.predict(r, Exposure::Life) - r.corun_mean_ns) /
                      r.corun_mean_ns);
    return out;
  }

 private:
  static std::pair<std::string, std::string> unordered(const std::string& a, const std::string& b) {
    const auto x = suite_kernel_of(a), y = suite_kernel_of(b);
    return x < y ? std::make_pair(x, y) : std::make_pair(y, x);
  }
  const KernelProfile* profile(const std::string& name) const {
    const auto it = profiles_.find(name);
    return it == profiles_.end() ? nullptr : &it->second;
  }

  double slowdown(const std::string& model, const CoRunRecord& r, int fold, Exposure exposure) const {
    if (!supports(model)) throw std::logic_error("held-out pairs: no rule for model " + model);
    if (model == "corun") return fits_.at({fold, CoRunForm::Occupancy, exposure}).predict(r, exposure);
    if (model == "age")  // the rule at the partner's exposure over the victim's life (the order from the run's name)
      return sim::age_predict(age_fits_[static_cast<std::size_t>(fold)], r, gpu_,
                              [&](const std::string& name) { return profile(name); });
    if (model == "corun:form=ratio") return fits_.at({fold, CoRunForm::Ratio, exposure}).predict(r, exposure);
    // `equivalent:gpu_wide=on|up`: a held-out co-run spreads both kernels over every SM, so each kernel's blocks on the
    // victim's SM are its GPU's over the SM count and both GPU-wide terms (S / SMs - s, N_j / SMs - n_j) are 0: the
    // rule is `equivalent`'s (docs/interference.md, "The GPU-wide share as the default").
    if (model == "equivalent" || model == "equivalent:fallback=value" || equivalent_gpu_wide(model)) {
      // sim/interference/equivalent.cpp's rule: the victim runs as its recordings do at r_eff = its own blocks +
      // sum of w(victim <- partner) x the partner's blocks, against its recordings at its own count. The weights
      // come from the profiles (fitted on native runs, no co-run record among them), so every co-run is held out
      // from the fit; a pair the native runs never put together weighs the victim's median fitted weight (the
      // model's default fallback), or 1 under `equivalent:fallback=value`.
      const KernelProfile* k = profile(r.victim);
      if (!k || k->record_sets.size() < 2) return 1.0;  // one residency recorded: the engine leaves it at rate 1
      const double unfitted = sim::equivalent_unfitted_weight(
          *k, model == "equivalent:fallback=value" ? sim::EquivalentFallback::Value : sim::EquivalentFallback::Median,
          1.0);
      double r_eff = r.victim_blocks_per_sm;
      for (const auto& p : r.partners)
        r_eff += sim::equivalent_weight(*k, p.kernel, unfitted) *
                 (exposure == Exposure::Life ? p.exposure : p.exposure_at_start);
      const double own = sim::equivalent_mean_ns(*k, r.victim_blocks_per_sm);
      return own > 0 ? sim::equivalent_mean_ns(*k, std::max(1.0, r_eff)) / own : 1.0;
    }
    if (model == "residency") {
      // The total blocks on the SM pick the victim's own block time (its record sets), relative to its own count.
      const KernelProfile* k = profile(r.victim);
      if (!k || k->record_sets.size() < 2) return 1.0;
      double total = r.victim_blocks_per_sm;
      for (const auto& p : r.partners) total += exposure == Exposure::Life ? p.exposure : p.exposure_at_start;
      const double own = mean_block_ns_at(*k, r.victim_blocks_per_sm);
      return own > 0 ? mean_block_ns_at(*k, total) / own : 1.0;
    }
    if (model == "bandwidth") {
      // sim/interference/bandwidth.cpp's rule with the SM's blocks as measured.
      const auto demand = [&](const std::string& name) {
        const KernelProfile* k = profile(name);
        return k ? sim::bandwidth_demand_per_block(*k) : 0.0;
      };
      const double own = demand(r.victim);
      double d = own * r.victim_blocks_per_sm;
      for (const auto& p : r.partners)
        d += demand(p.kernel) * (exposure == Exposure::Life ? p.exposure : p.exposure_at_start);
      return sim::bandwidth_slowdown(d, own, r.victim_full, gpu_);
    }
    if (const auto variant = markov_variant(model)) {
      const bool calibrated = variant->calibrated;
      const kernelet::SmModel& chain = variant->model;
      // sim/interference/markov.cpp's rule with the SM's blocks as measured (each partner's exposure rounded to
      // whole blocks): the victim's per-block IPC alone at its own count over its IPC beside the partners.
      const auto victim = model_input(r.victim, calibrated, chain);
      if (!victim) return 1.0;
      std::vector<kernelet::ModelKernel> kernels{*victim};
      std::vector<int> blocks{r.victim_blocks_per_sm};
      for (const auto& p : r.partners)
        if (const auto m = model_input(p.kernel, calibrated, chain)) {
          kernels.push_back(*m);
          blocks.push_back(
              static_cast<int>(std::lround(exposure == Exposure::Life ? p.exposure : p.exposure_at_start)));
        }
      const double alone = kernelet::sm_ipc(chain, {*victim}, {r.victim_blocks_per_sm})[0];
      const double shared = kernelet::sm_ipc(chain, kernels, blocks)[0];
      return alone > 0 && shared > 0 ? alone / shared : 1.0;
    }
    return 1.0;  // none
  }

 public:
  // The models the held-out rows can be predicted under: the co-run fits are made here on each fold, so a
  // `corun` with other parameters (another co-run file, another order) has no held-out rule.
  static bool supports(const std::string& model) {
    return model == "none" || model == "residency" || model == "bandwidth" || markov_spec(model) || model == "corun" ||
           model == "corun:form=ratio" || model == "age" || model == "equivalent" ||
           model == "equivalent:fallback=value" || equivalent_gpu_wide(model);
  }
  // `markov` with no parameters but `inputs` (counted or calibrated) and `split` (blocks or warps): the variants
  // whose held-out rule is the chain's (its other parameters are not read here).
  static bool markov_spec(const std::string& model) {
    std::map<std::string, std::string> params;
    try {
      if (sim::split_model_spec(model, params) != "markov") return false;
    } catch (const std::invalid_argument&) {
      return false;
    }
    for (const auto& [key, value] : params)
      if (!(key == "inputs" && (value == "counted" || value == "calibrated")) &&
          !(key == "split" && (value == "blocks" || value == "warps")))
        return false;
    return true;
  }
  struct MarkovVariant {
    bool calibrated = false;
    kernelet::SmModel model;
  };
  std::optional<MarkovVariant> markov_variant(const std::string& model) const {
    if (!markov_spec(model)) return std::nullopt;
    std::map<std::string, std::string> params;
    sim::split_model_spec(model, params);
    MarkovVariant v{params.count("inputs") && params.at("inputs") == "calibrated", markov_};
    if (params.count("split") && params.at("split") == "warps") v.model.split = kernelet::SchedulerSplit::Warps;
    return v;
  }
  static bool equivalent_gpu_wide(const std::string& model) {
    return model == "equivalent:gpu_wide=on" || model == "equivalent:gpu_wide=up";
  }

  // `calibrated`: R_m set to reproduce the kernel's recorded IPC alone (`markov:inputs=calibrated`) by `model`'s chain.
  std::optional<kernelet::ModelKernel> model_input(const std::string& name, bool calibrated,
                                                   const kernelet::SmModel& model) const {
    const KernelProfile* k = profile(name);
    return k ? kernelet::model_inputs(*k, model, gpu_, calibrated) : std::nullopt;
  }

  // Kernelet's Figure 7 and 8 comparison on these kernels: IPC per SM (warp instructions per cycle) measured
  // against the Markov model's, alone (each kernel's recording at its highest residency r: recorded blocks x
  // instructions per block / (SMs x span in cycles), what a profiler's instructions over active cycles gives) and
  // together (each co-run of one pair at one mix, one wave of each: both kernels' blocks per SM x instructions
  // per block over the longer of the two mean co-run block times). Absolute errors, as the paper reports them.
  struct IpcPoint {
    std::string what;
    double measured = 0, predicted = 0;
  };
  // `lower` false: each kernel at its highest recorded residency (with its R_m); true: at its other recorded
  // residencies (1 and about half the highest): calibrated inputs match the highest by construction, so these are
  // what the chain predicts of the kernel's own residency curve.
  std::vector<IpcPoint> ipc_alone(const std::string& variant, bool lower = false) const {
    const auto v = *markov_variant(variant);
    std::vector<IpcPoint> out;
    for (const auto& [name, k] : profiles_) {
      const auto m = model_input(name, v.calibrated, v.model);
      if (!m || !k.instructions_per_block || k.record_sets.empty()) continue;
      const std::size_t last = k.record_sets.size() - 1;
      for (std::size_t i = lower ? 0 : last; i < (lower ? last : last + 1); ++i) {
        const RecordSet& set = k.record_sets[i];
        const auto measured = kernelet::recorded_ipc(set, *k.instructions_per_block, gpu_);
        if (!measured) continue;
        out.push_back({lower ? fmt::format("{} r={}", name, set.residency)
                             : fmt::format("{} r={} R_m {:.4f}", name, set.residency, m->memory_ratio),
                       *measured, kernelet::sm_ipc(v.model, {*m}, {set.residency})[0]});
      }
    }
    return out;
  }
  std::vector<IpcPoint> ipc_together(const std::string& variant) const {
    const auto v = *markov_variant(variant);
    const bool calibrated = v.calibrated;
    // run and repeat -> the two victims' rows
    std::map<std::pair<std::string, int>, std::vector<const CoRunRecord*>> runs;
    for (const auto& r : table_.records)
      if (r.partners.size() == 1) runs[{r.run, r.repeat}].push_back(&r);
    std::map<std::string, std::pair<double, double>> sum;  // run without the order suffix -> (measured, predicted)
    std::map<std::string, int> count;
    for (const auto& [key, rows] : runs) {
      if (rows.size() != 2) continue;
      std::vector<kernelet::ModelKernel> kernels;
      std::vector<int> blocks;
      double instructions = 0, longest = 0;
      for (const CoRunRecord* r : rows) {
        const KernelProfile* k = profile(r->victim);
        const auto m = model_input(r->victim, calibrated, v.model);
        if (!k || !m || !k->instructions_per_block || r->corun_mean_ns <= 0) break;
        kernels.push_back(*m);
        blocks.push_back(r->victim_blocks_per_sm);
        instructions += r->victim_blocks_per_sm * *k->instructions_per_block;
        longest = std::max(longest, r->corun_mean_ns);
      }
      if (kernels.size() != 2) continue;
      const double measured = instructions / (longest * gpu_.clock_mhz / 1000.0);
      const auto ipc = kernelet::sm_ipc(v.model, kernels, blocks);
      const std::string mix = key.first.substr(0, key.first.find('/'));
      sum[mix].first += measured;
      sum[mix].second += ipc[0] + ipc[1];
      ++count[mix];
    }
    std::vector<IpcPoint> out;
    for (const auto& [mix, s] : sum) out.push_back({mix, s.first / count.at(mix), s.second / count.at(mix)});
    return out;
  }

 private:
  CoRunTable table_;
  const GpuSpec& gpu_;
  std::map<std::pair<std::string, std::string>, int> fold_;
  std::map<std::string, KernelProfile> profiles_;
  std::map<std::tuple<int, CoRunForm, Exposure>, sim::CoRunCoefficients> fits_;
  std::array<sim::AgeParams, 2> age_fits_;
  kernelet::SmModel markov_ = kernelet::sm_model_for(gpu_);

 public:
  double peak_ipc() const { return markov_.peak_ipc; }
};

// Per launch: its pieces' block times (end - start; the prediction's in raw-equivalent time).
std::vector<std::vector<double>> launch_block_times(const Workload& w, const Schedule& s, bool predicted) {
  std::vector<std::vector<double>> out(w.launches.size());
  for (const auto& piece : s.pieces)
    out[static_cast<std::size_t>(piece.launch)].push_back(predicted ? raw_equivalent_ns(w, piece)
                                                                    : static_cast<double>(piece.end - piece.start));
  return out;
}

// Per launch: mean block time (end - start of its pieces; the prediction's in raw-equivalent time, as
// prediction_errors compares them).
std::vector<double> launch_block_means(const Workload& w, const Schedule& s, bool predicted) {
  std::vector<double> means;
  for (const auto& times : launch_block_times(w, s, predicted))
    means.push_back(
        times.empty() ? 0.0 : std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size()));
  return means;
}

int run_crossval(const CrossvalArgs& a) {
  const CoRunTable table = read_corun_records(a.coruns);
  const std::string gpu_name = table.provenance.count("gpu") ? table.provenance.at("gpu") : "";
  const GpuSpec* preset = find_gpu_preset(gpu_name);
  if (!preset)
    throw std::invalid_argument(fmt::format("{}: provenance 'gpu' names no GPU preset (\"{}\")", a.coruns, gpu_name));
  std::string dir = a.profiles;
  if (dir.empty()) dir = std::filesystem::path(a.coruns).parent_path().string();
  const HeldOutPairs held(table, dir.empty() ? "." : dir, *preset, a.seed, a.victim_residency == "placed");

  std::vector<std::string> rows;
  auto row = [&](const std::string& model, const std::string& scope, double med, double p90, const std::string& mk,
                 const std::string& ks) {
    rows.push_back(fmt::format("{},{},{},{},{:.2f},{:.2f},{},{}", model, model == a.default_model ? 1 : 0, gpu_name,
                               scope, med, p90, mk, ks));
  };
  fmt::print("held-out pairs ({} co-run records, two folds): co-run block time error\n", table.records.size());
  fmt::print("{:<12} {:>10} {:>10} {:>22}\n", "model", "median %", "p90 %", "(exposure at start)");
  for (const auto& m : a.models) {
    if (!HeldOutPairs::supports(m)) {
      fmt::print("{:<12} {:>10} {:>10}   (no held-out rule: fitted elsewhere; see the native runs below)\n", m, "-",
                 "-");
      continue;
    }
    const auto e = held.errors(m), s = held.errors(m, Exposure::Start);
    fmt::print("{:<12} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f}\n", m, median_of(e), nearest_rank(e, 0.9), median_of(s),
               nearest_rank(s, 0.9));
    row(m, "held-out-pairs", median_of(e), nearest_rank(e, 0.9), "", "");
  }
  if (a.per_victim)
    for (const auto& m : a.models) {
      if (!HeldOutPairs::supports(m)) continue;
      fmt::print(
          "  {} by victim: rows, median signed error % (negative: predicted faster), median slowdown measured, "
          "predicted\n",
          m);
      for (const auto& v : held.by_victim(m))
        fmt::print("    {:<14} {:>5} {:>8.1f} {:>8.2f} {:>8.2f}\n", v.victim, v.rows, v.signed_err, v.measured,
                   v.predicted);
    }
  if (a.worst > 0)
    for (const auto& m : a.models) {
      if (!HeldOutPairs::supports(m)) continue;
      fmt::print(
          "  {}: the {} worst held-out rows (signed error %; slowdowns measured and predicted; the victim's own "
          "blocks per SM as the models take it (placed, rounded, under --victim-residency placed) and as measured; the "
          "partner's exposure over the victim's life and at its start)\n",
          m, a.worst);
      for (const auto& w : held.worst(m, static_cast<std::size_t>(a.worst))) {
        const CoRunRecord& r = *w.record;
        fmt::print("    {:<44} {} {:<16} {:>8.1f} {:>6.2f} {:>6.2f}  own {:>2} {:>5.2f}  exposure {:>5.2f} {:>5.2f}\n",
                   r.run, r.repeat, r.victim, w.error, r.slowdown(), w.predicted, r.victim_blocks_per_sm,
                   r.victim_residency(), r.partners.front().exposure, r.partners.front().exposure_at_start);
      }
    }
  if (const auto noise = held.repeat_noise(); !noise.empty())
    fmt::print("{:<12} {:>10.2f} {:>10.2f}   (the records' own noise: each repeat against the others' mean)\n",
               "repeats", median_of(noise), nearest_rank(noise, 0.9));
  if (std::find(a.models.begin(), a.models.end(), "age") != a.models.end()) {
    const auto p = held.age_fit_all();
    std::string pressure;
    for (const auto& [k, v] : p.pressure) pressure += fmt::format(" {} {:.2f}", k, v);
    fmt::print("age fitted on every pair: gamma {:.2f}, kappa {:.3f}, utilisation cap {:.2f}, pressure{}\n", p.gamma,
               p.kappa, p.u_cap, pressure);
  }
  for (CoRunForm form : {CoRunForm::Occupancy, CoRunForm::Ratio})
    if (const auto t = held.triple_errors(form); !t.empty())
      fmt::print(
          "three-kernel rows under corun ({} form, all pairs fitted, exponents added): median {:.2f} %, p90 "
          "{:.2f} %\n",
          form == CoRunForm::Ratio ? "ratio" : "occupancy", median_of(t), nearest_rank(t, 0.9));

  const auto report_ipc = [&](const char* model, const char* title, const auto& points) {
    if (points.empty()) return;
    double err = 0;
    for (const auto& p : points) err += std::abs(p.measured - p.predicted);
    fmt::print("\n{} IPC per SM, {} ({} points): mean absolute error {:.3f} (peak {})\n", model, title, points.size(),
               err / static_cast<double>(points.size()), held.peak_ipc());
    if (a.ipc_detail)
      for (const auto& p : points)
        fmt::print("  {:<40} measured {:6.3f}  predicted {:6.3f}\n", p.what, p.measured, p.predicted);
  };
  // Kernelet's Figures 7 and 8 on these kernels: the paper's inputs always (the model as the paper defines it), the
  // calibrated ones where that variant is asked for (alone they match by construction: what is predicted is pairs).
  std::vector<std::string> markov_variants{"markov"};
  for (const auto& m : a.models)
    if (m != "markov" && HeldOutPairs::markov_spec(m)) markov_variants.push_back(m);
  for (const auto& model : markov_variants) {
    report_ipc(model.c_str(), "each kernel alone", held.ipc_alone(model));
    report_ipc(model.c_str(), "each kernel alone at its lower recorded residencies", held.ipc_alone(model, true));
    report_ipc(model.c_str(), "pairs together (mean over repeats and orders)", held.ipc_together(model));
  }

  if (!a.measured.empty()) {
    std::vector<store::Store> dbs;
    std::map<std::string, std::vector<std::pair<std::size_t, std::int64_t>>> runs_of;  // workload file -> runs
    store::RunFilter live_runs;
    live_runs.mode = "live";
    for (const auto& path : a.measured) {
      dbs.push_back(store::Store::open(path, store::Store::Mode::ReadOnly));
      for (const auto& s : dbs.back().list_runs(live_runs))
        runs_of[s.info.workload_file].emplace_back(dbs.size() - 1, s.info.id);
    }
    for (const auto& [file, ids] : runs_of) {
      const auto loaded = sim::load_workload_and_gpu(file, "", nullptr, "--gpu", "the workload must name its GPU");
      const Workload& w = loaded.workload;
      fmt::print("\n{} ({} measured runs): per-launch mean block time error, makespan error, block KS\n", w.name,
                 ids.size());
      fmt::print("{:<12} {:>10} {:>10} {:>10} {:>8} {:>12} {:>12}\n", "model", "median %", "p90 %", "makespan %", "KS",
                 "turn. med %", "turn. p90 %");
      std::vector<RunResult> measured;
      for (const auto& [db, id] : ids) measured.push_back(store::run_result_of(dbs[db].load_run(id)));
      for (const auto& m : a.models) {
        sim::RunOptions o;
        o.interference = m;  // "name:key=value,..." is split by the runner (sim/runner.h)
        sim::AloneTimeCache cache;
        const RunResult p = sim::run_workload(w, loaded.gpu, o, cache);
        const auto predicted_means = launch_block_means(w, p.schedule, true);
        std::vector<double> med, p90, mk, ks, turn, turn90;
        for (const auto& r : measured) {
          const auto measured_means = launch_block_means(w, r.schedule, false);
          std::vector<double> err;
          for (std::size_t i = 0; i < w.launches.size(); ++i)
            if (measured_means[i] > 0)
              err.push_back(100.0 * std::abs(predicted_means[i] - measured_means[i]) / measured_means[i]);
          med.push_back(median_of(err));
          p90.push_back(nearest_rank(err, 0.9));
          const auto e = prediction_errors(w, r, p);
          mk.push_back(e.makespan_pct);
          ks.push_back(e.block_ks);
          turn.push_back(e.turnaround_median_pct);
          turn90.push_back(e.turnaround_p90_pct);
        }
        fmt::print("{:<12} {:>10.2f} {:>10.2f} {:>10.2f} {:>8.4f} {:>12.2f} {:>12.2f}\n", m, median_of(med),
                   median_of(p90), median_of(mk), median_of(ks), median_of(turn), median_of(turn90));
        if (a.per_launch && !measured.empty()) {
          // The first measured run against the prediction, launch by launch: where the errors above come from.
          auto mt = launch_block_times(w, measured.front().schedule, false);
          auto pt = launch_block_times(w, p.schedule, true);
          for (std::size_t i = 0; i < w.launches.size(); ++i) {
            if (mt[i].empty() || pt[i].empty()) continue;
            const double mm = std::accumulate(mt[i].begin(), mt[i].end(), 0.0) / static_cast<double>(mt[i].size());
            const double pm = std::accumulate(pt[i].begin(), pt[i].end(), 0.0) / static_cast<double>(pt[i].size());
            const auto turn_m = measured.front().launches[i].turnaround, turn_p = p.launches[i].turnaround;
            fmt::print(
                "    {:<24} blocks {:>6}  block mean measured {:>10.0f} predicted {:>10.0f} ({:+6.1f} %)  KS {:.3f}"
                "  turnaround {:>9} / {:>9} ns\n",
                w.launches[i].id, mt[i].size(), mm, pm, 100.0 * (pm - mm) / mm, store::ks_statistic(mt[i], pt[i]),
                turn_m, turn_p);
          }
        }
        row(m, w.name, median_of(med), median_of(p90), fmt::format("{:.2f}", median_of(mk)),
            fmt::format("{:.4f}", median_of(ks)));
      }
    }
  }
  if (!a.csv.empty()) {
    std::string text = "model,default,gpu,scope,block_err_median_pct,block_err_p90_pct,makespan_err_pct,block_ks\n";
    for (const auto& r : rows) text += r + "\n";
    AtomicFile out(a.csv);
    out.write(text);
    out.commit();
    fmt::print("\n{} rows written to {}\n", rows.size(), a.csv);
  }
  return 0;
}

}  // namespace

void add_crossval_command(CLI::App& app) {
  auto a = std::make_shared<CrossvalArgs>();
  auto* cmd = app.add_subcommand(
      "crossval", "Cross-validate the interference models on measured co-runs (held-out pairs) and native runs");
  cmd->add_option("--coruns", a->coruns, "Co-run records (gpusched-live record-pairs)")->required();
  cmd->add_option("--profiles", a->profiles,
                  "Folder of the co-run kernels' profiles (NAME.kernel.toml; default: the co-run file's folder)");
  cmd->add_option("--measured", a->measured,
                  "Result stores with native runs (gpusched-live native --db; repeatable, one workload or several)");
  cmd->add_option("--model", a->models, "Interference models to compare (repeatable)");
  cmd->add_option("--default-model", a->default_model, "The model marked default in the CSV");
  cmd->add_option("--seed", a->seed, "Seed of the split of pairs into two halves");
  cmd->add_option("--victim-residency", a->victim_residency,
                  "Held-out pairs: each co-run's reference alone at the residency its victim was placed at (where "
                  "recorded) or at its launch's blocks per SM")
      ->check(CLI::IsMember({"placed", "launched"}));
  cmd->add_flag("--ipc-detail", a->ipc_detail, "Print each kernel's and pair's measured and predicted IPC");
  cmd->add_flag("--per-victim", a->per_victim,
                "Break each model's held-out co-run error down by victim kernel (signed error, slowdowns)");
  cmd->add_option("--worst", a->worst, "Under each model, list its N worst-predicted held-out co-run rows")
      ->check(CLI::Range(0, 100000));
  cmd->add_flag("--per-launch", a->per_launch,
                "Under each model, each launch of the first measured run: mean block times, KS, turnarounds");
  cmd->add_option("--csv", a->csv, "Write the rows (docs/interference/crossval.csv's columns)");
  cmd->callback([a] { run_crossval(*a); });
}

}  // namespace gpusched::cli
