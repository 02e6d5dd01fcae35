// Which SMs may still have room for a block of each footprint class. A policy whose hand-offs visit every
// SM (srtf when the running launch changes) would otherwise pay a pass over all SMs per hand-off even
// though nearly all of them are full; with this it visits only the SMs where a block of the footprints it
// would place may fit, and skips exactly those where the engine's fill would place nothing (issue "Speed").
//
// An SM's bit for a class is cleared when a check finds no room for one block of that class, and set again
// for every class when the SM frees resources (EngineView::freed_sms, or reset_all after the policy's own
// preemptions). Placing blocks only takes room, so a cleared bit never hides an SM with room.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine.h"

namespace gpusched::sim {

class RoomIndex {
 public:
  // Footprints beyond the first 63 share this bit and are never ruled out.
  static constexpr std::uint64_t kOther = std::uint64_t{1} << 63;

  // The class bit of launch l's block footprint (classes are assigned on first sight).
  std::uint64_t class_bit(const EngineView& v, std::int32_t l) {
    const auto& f = v.launch(l).footprint;
    auto it = std::find(footprints_.begin(), footprints_.end(), f);
    if (it == footprints_.end()) {
      if (footprints_.size() >= 63) return kOther;
      it = footprints_.insert(footprints_.end(), f);
      representative_.push_back(l);
      may_fit_.emplace_back(words(v), ~std::uint64_t{0});
    }
    return std::uint64_t{1} << (it - footprints_.begin());
  }

  // Every SM may have room for every class again.
  void reset_all() {
    for (auto& bits : may_fit_) std::fill(bits.begin(), bits.end(), ~std::uint64_t{0});
  }

  // These SMs freed resources.
  void on_freed(std::span<const std::int32_t> sms) {
    for (const std::int32_t sm : sms)
      for (auto& bits : may_fit_) bits[static_cast<std::size_t>(sm) / 64] |= std::uint64_t{1} << (sm % 64);
  }

  // Calls f(sm), in ascending SM order, for every SM where one block of some class in `classes` fits now;
  // clears the bits of the classes found not to fit.
  template <class F>
  void for_each_sm(const EngineView& v, std::uint64_t classes, F&& f) {
    const int sms = v.sm_count();
    for (int w = 0; w < words(v); ++w) {
      std::uint64_t candidates = 0;
      if (classes & kOther)
        candidates = ~std::uint64_t{0};
      else
        for (std::uint64_t c = classes; c != 0; c &= c - 1)
          candidates |= may_fit_[static_cast<std::size_t>(std::countr_zero(c))][static_cast<std::size_t>(w)];
      for (; candidates != 0; candidates &= candidates - 1) {
        const int sm = w * 64 + std::countr_zero(candidates);
        if (sm >= sms) break;
        bool fits = (classes & kOther) != 0;
        for (std::uint64_t c = classes & ~kOther; c != 0; c &= c - 1) {
          const auto k = static_cast<std::size_t>(std::countr_zero(c));
          if (v.resources_fit(representative_[k], sm, 1))
            fits = true;
          else
            may_fit_[k][static_cast<std::size_t>(w)] &= ~(std::uint64_t{1} << (sm % 64));
        }
        if (fits) f(sm);
      }
    }
  }

  // True if one block of some class in `classes` fits the SM's free resources now.
  bool any_fits(const EngineView& v, std::uint64_t classes, int sm) const {
    if (classes & kOther) return true;
    for (std::uint64_t c = classes; c != 0; c &= c - 1)
      if (v.resources_fit(representative_[static_cast<std::size_t>(std::countr_zero(c))], sm, 1)) return true;
    return false;
  }

 private:
  static int words(const EngineView& v) { return (v.sm_count() + 63) / 64; }

  std::vector<BlockFootprint> footprints_;
  std::vector<std::int32_t> representative_;         // a launch of each class, for resource checks
  std::vector<std::vector<std::uint64_t>> may_fit_;  // per class, one bit per SM
};

}  // namespace gpusched::sim
