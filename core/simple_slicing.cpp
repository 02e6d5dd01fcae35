#include "core/simple_slicing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpusched {

TimeNs staircase_runtime(std::int64_t blocks, int residency, TimeNs block_time) {
  if (residency <= 0) throw std::invalid_argument("staircase_runtime: residency must be positive");
  return ((blocks + residency - 1) / residency) * block_time;
}

SimpleSlicingPredictor::SimpleSlicingPredictor(int sm_count, Tracking tracking)
    : sm_count_(sm_count), tracking_(tracking) {}

SimpleSlicingPredictor::Kernel& SimpleSlicingPredictor::kernel(std::int32_t k) {
  if (k < 0) throw std::invalid_argument("SimpleSlicingPredictor: negative kernel id");
  if (static_cast<std::size_t>(k) >= kernels_.size()) kernels_.resize(static_cast<std::size_t>(k) + 1);
  return kernels_[static_cast<std::size_t>(k)];
}

void SimpleSlicingPredictor::MaxTree::reset(std::size_t n) {
  levels = 0;
  std::size_t size = 0;
  for (std::size_t width = std::max<std::size_t>(1, n);; width = (width + kFan - 1) / kFan) {
    if (levels == level.size()) throw std::length_error("SimpleSlicingPredictor: too many SMs for the max tree");
    level[levels++] = static_cast<std::uint32_t>(size);
    if (width == 1) break;
    size += (width + kFan - 1) / kFan * kFan;
  }
  node.assign(size + 1, -1);
}

void SimpleSlicingPredictor::MaxTree::set(std::size_t i, TimeNs value) {
  TimeNs* at = node.data() + level[0] + i;
  if (*at == value) return;
  *at = value;
  for (std::size_t l = 1; l < levels; ++l) {
    const TimeNs* group = node.data() + level[l - 1] + i / kFan * kFan;
    TimeNs m = group[0];
    for (std::size_t c = 1; c < kFan; ++c) m = std::max(m, group[c]);
    i /= kFan;
    TimeNs& parent = node[level[l] + i];
    if (parent == m) break;  // the maxima above do not change either
    parent = m;
  }
}

void SimpleSlicingPredictor::on_launch(std::int32_t k, std::int64_t blocks, int max_residency, TimeNs) {
  Kernel& K = kernel(k);
  K.live = true;
  K.blocks_per_sm = static_cast<double>(blocks) / sm_count_;
  K.blocks = blocks;
  K.done = 0;
  K.rate_sum = 0;
  K.rate_count = 0;
  K.max_residency = std::max(1, max_residency);
  K.sms.assign(static_cast<std::size_t>(sm_count_), SmState{});
  for (auto& s : K.sms) s.slice_residency = K.max_residency;
  if (tracking_.max_remaining) K.remaining.reset(K.sms.size());
  if (tracking_.max_total) K.total.reset(K.sms.size());
  ++epoch_;  // a new slice for every other kernel (this one's SMs have no sample yet)
}

TimeNs SimpleSlicingPredictor::running_now(const SmState& s, TimeNs now) const {
  return s.running + (s.resident > 0 ? now - s.busy_since : 0);
}

TimeNs SimpleSlicingPredictor::remaining_of(const SmState& s, TimeNs total) {
  // T_run at the time of the prediction; the remainder shrinks as the SM keeps running the kernel.
  const TimeNs run_then = s.running + (s.resident > 0 ? s.predicted_at - s.busy_since : 0);
  return std::max<TimeNs>(0, total - run_then);
}

inline void SimpleSlicingPredictor::refresh(Kernel& K, int sm, bool total_changed) {
  const SmState& s = K.sms[static_cast<std::size_t>(sm)];
  if (!s.has_prediction) return;
  const auto total = static_cast<TimeNs>(std::llround(s.predicted));
  if (tracking_.max_remaining) K.remaining.set(static_cast<std::size_t>(sm), remaining_of(s, total));
  if (tracking_.max_total && total_changed) K.total.set(static_cast<std::size_t>(sm), total);
}

void SimpleSlicingPredictor::on_block_start(std::int32_t k, int sm, TimeNs now) {
  Kernel& K = kernel(k);
  SmState& s = K.sms.at(static_cast<std::size_t>(sm));
  if (s.resident++ == 0) {
    s.busy_since = now;
    // The remaining time depends on when the SM last became busy; T_pred does not (only a block end sets it, and
    // refreshes its leaf then): its tree's leaf is left alone, a cache miss a block under a long queue.
    refresh(K, sm, false);
  }
}

void SimpleSlicingPredictor::on_block_end(std::int32_t k, int sm, TimeNs duration, TimeNs now) {
  Kernel& K = kernel(k);
  SmState& s = K.sms.at(static_cast<std::size_t>(sm));
  if (s.resident <= 0) throw std::logic_error("SimpleSlicingPredictor: block end without a start");
  if (s.sample_epoch != epoch_) {  // the first block to finish in the slice is the sample
    if (tracking_.gpu && s.has_prediction)
      K.rate_sum -= static_cast<double>(s.block_time) / std::max(1, s.slice_residency);
    s.block_time = duration;
    s.slice_residency = s.resident;
    s.sample_epoch = epoch_;
    if (tracking_.gpu) K.rate_sum += static_cast<double>(s.block_time) / std::max(1, s.slice_residency);
    if (!s.has_prediction) ++K.rate_count;
  }
  ++K.done;
  if (--s.resident == 0) s.running += now - s.busy_since;
  ++s.done;
  // Equation 2 (reconstructed): T_pred = T_run + (N_total - N_done) x t / R, never below T_run.
  const double left = std::max(0.0, K.blocks_per_sm - static_cast<double>(s.done));
  s.predicted = static_cast<double>(running_now(s, now)) +
                left * static_cast<double>(s.block_time) / std::max(1, s.slice_residency);
  s.predicted_at = now;
  s.has_prediction = true;
  refresh(K, sm, true);
}

void SimpleSlicingPredictor::on_kernel_end(std::int32_t k, TimeNs) {
  kernel(k).live = false;
  ++epoch_;  // a new slice for every other kernel
}

const SimpleSlicingPredictor::Kernel* SimpleSlicingPredictor::find(std::int32_t k) const {
  if (k < 0 || static_cast<std::size_t>(k) >= kernels_.size()) return nullptr;
  return &kernels_[static_cast<std::size_t>(k)];
}

std::optional<TimeNs> SimpleSlicingPredictor::gpu_remaining(std::int32_t k) const {
  if (!tracking_.gpu) throw std::logic_error("SimpleSlicingPredictor: gpu_remaining is not tracked");
  const Kernel* K = find(k);
  if (!K || K->rate_count == 0) return std::nullopt;
  const double left = static_cast<double>(std::max<std::int64_t>(0, K->blocks - K->done)) / sm_count_;
  return static_cast<TimeNs>(std::llround(left * K->rate_sum / K->rate_count));
}

std::optional<TimeNs> SimpleSlicingPredictor::gpu_predicted_total(std::int32_t k) const {
  if (!tracking_.gpu) throw std::logic_error("SimpleSlicingPredictor: gpu_predicted_total is not tracked");
  const Kernel* K = find(k);
  if (!K || K->rate_count == 0) return std::nullopt;
  return static_cast<TimeNs>(std::llround(K->blocks_per_sm * K->rate_sum / K->rate_count));
}

bool SimpleSlicingPredictor::has_prediction(std::int32_t k) const {
  const Kernel* K = find(k);
  return K && K->rate_count > 0;
}

std::optional<TimeNs> SimpleSlicingPredictor::max_remaining(std::int32_t k) const {
  if (!tracking_.max_remaining) throw std::logic_error("SimpleSlicingPredictor: max_remaining is not tracked");
  const Kernel* K = find(k);
  if (!K || K->remaining.node.empty() || K->remaining.max() < 0) return std::nullopt;
  return K->remaining.max();
}

std::optional<TimeNs> SimpleSlicingPredictor::max_predicted_total(std::int32_t k) const {
  if (!tracking_.max_total) throw std::logic_error("SimpleSlicingPredictor: max_predicted_total is not tracked");
  const Kernel* K = find(k);
  if (!K || K->total.node.empty() || K->total.max() < 0) return std::nullopt;
  return K->total.max();
}

std::optional<TimeNs> SimpleSlicingPredictor::predicted_total_on_sm(std::int32_t k, int sm) const {
  const Kernel* K = find(k);
  if (!K || sm < 0 || static_cast<std::size_t>(sm) >= K->sms.size() ||
      !K->sms[static_cast<std::size_t>(sm)].has_prediction)
    return std::nullopt;
  return static_cast<TimeNs>(std::llround(K->sms[static_cast<std::size_t>(sm)].predicted));
}

std::optional<TimeNs> SimpleSlicingPredictor::remaining_on_sm(std::int32_t k, int sm) const {
  const auto total = predicted_total_on_sm(k, sm);
  if (!total) return std::nullopt;
  return remaining_of(kernels_[static_cast<std::size_t>(k)].sms[static_cast<std::size_t>(sm)], *total);
}

std::optional<TimeNs> SimpleSlicingPredictor::predicted_finish(std::int32_t k, TimeNs now) const {
  if (k < 0 || static_cast<std::size_t>(k) >= kernels_.size()) return std::nullopt;
  std::optional<TimeNs> latest;
  for (int sm = 0; sm < sm_count_ && static_cast<std::size_t>(sm) < kernels_[static_cast<std::size_t>(k)].sms.size();
       ++sm) {
    const auto rem = remaining_on_sm(k, sm);
    if (!rem) continue;
    const auto& s = kernels_[static_cast<std::size_t>(k)].sms[static_cast<std::size_t>(sm)];
    const TimeNs finish = std::max(now, s.predicted_at + *rem);
    latest = latest ? std::max(*latest, finish) : finish;
  }
  return latest;
}

}  // namespace gpusched
