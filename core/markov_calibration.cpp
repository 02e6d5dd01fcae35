#include "core/markov_calibration.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpusched::kernelet {

std::optional<double> recorded_ipc(const RecordSet& set, double instructions, const GpuSpec& gpu) {
  if (set.span <= 0 || set.recorded <= 0 || set.residency <= 0 || gpu.clock_mhz <= 0) return std::nullopt;
  // The SMs the recording used: every SM, unless the grid is smaller than one wave.
  const double sms = std::min<double>(gpu.sm_count, std::ceil(static_cast<double>(set.recorded) / set.residency));
  const double cycles = static_cast<double>(set.span) * gpu.clock_mhz / 1000.0;
  return static_cast<double>(set.recorded) * instructions / (sms * cycles);
}

std::optional<double> recorded_ipc(const KernelProfile& k, const GpuSpec& gpu) {
  if (!k.instructions_per_block || k.record_sets.empty()) return std::nullopt;
  return recorded_ipc(k.record_sets.back(), *k.instructions_per_block, gpu);
}

std::optional<ModelKernel> calibrated_model_kernel(const KernelProfile& k, const SmModel& model, const GpuSpec& gpu) {
  auto m = model_kernel(k, model, gpu.warp_size);
  const auto target = recorded_ipc(k, gpu);
  if (!m || !target) return m;
  const int residency = k.record_sets.back().residency;
  const auto ipc_at = [&](double memory_ratio) {
    ModelKernel trial = *m;
    trial.memory_ratio = memory_ratio;
    return sm_ipc(model, {trial}, {residency})[0];
  };
  double lo = 0.0, hi = 1.0;  // ipc_at(lo) >= target >= ipc_at(hi) once bracketed
  if (ipc_at(lo) <= *target) {
    hi = lo;
  } else if (ipc_at(hi) >= *target) {
    lo = hi;
  } else {
    for (int i = 0; i < 40; ++i) {  // 2^-40: far below any difference the chain resolves
      const double mid = 0.5 * (lo + hi);
      (ipc_at(mid) > *target ? lo : hi) = mid;
    }
  }
  m->memory_ratio = 0.5 * (lo + hi);
  return m;
}

std::optional<ModelKernel> model_inputs(const KernelProfile& k, const SmModel& model, const GpuSpec& gpu,
                                        bool calibrated) {
  return calibrated ? calibrated_model_kernel(k, model, gpu) : model_kernel(k, model, gpu.warp_size);
}

bool parse_calibrated_inputs(const std::string& value, const std::string& who) {
  if (value != "counted" && value != "calibrated")
    throw std::invalid_argument(who + ": parameter 'inputs' expects counted or calibrated, found \"" + value + "\"");
  return value == "calibrated";
}

SchedulerSplit parse_scheduler_split(const std::string& value, const std::string& who) {
  if (value != "blocks" && value != "warps")
    throw std::invalid_argument(who + ": parameter 'split' expects blocks or warps, found \"" + value + "\"");
  return value == "warps" ? SchedulerSplit::Warps : SchedulerSplit::Blocks;
}

}  // namespace gpusched::kernelet
