// Kernelet's Markov-chain model with each kernel's memory ratio calibrated to its own recording (an option, not the
// paper's: docs/interference.md, "Kernelet's model calibrated on each kernel alone"). The paper reads R_m from the
// profiler (memory instructions over instructions) and charges every memory instruction the DRAM latency; on the H100
// most of sad's, stencil's and xtea's memory instructions hit in L1 or L2, and the chain predicts them 5-12x too slow
// alone. Calibrated, R_m is the share of instructions that stall as long as a DRAM access: the one value for which
// the chain, alone at the kernel's recorded residency, issues at the IPC its recording measured.
#pragma once
#include <optional>
#include <string>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/markov_model.h"

namespace gpusched::kernelet {

// Warp instructions per cycle of one SM in a recording of `instructions` per block: recorded blocks x instructions
// per block / (SMs the recording used x its span in cycles). nullopt for a record set without a span (built in code).
std::optional<double> recorded_ipc(const RecordSet& set, double instructions, const GpuSpec& gpu);

// The same of the kernel's recording at its highest residency; nullopt also without counted instructions.
std::optional<double> recorded_ipc(const KernelProfile& k, const GpuSpec& gpu);

// model_kernel()'s inputs with R_m replaced by the value (in [0, 1], found by bisection: the chain's IPC falls as R_m
// grows) at which sm_ipc(model, {kernel}, {highest recorded residency}) equals recorded_ipc(). Clamped to 0 or 1
// where the recording is faster than the chain at R_m = 0 or slower than at R_m = 1. A profile without a recorded IPC
// keeps model_kernel()'s inputs.
std::optional<ModelKernel> calibrated_model_kernel(const KernelProfile& k, const SmModel& model, const GpuSpec& gpu);

// The model's inputs for `k` under the `inputs` parameter: calibrated_model_kernel() or model_kernel().
std::optional<ModelKernel> model_inputs(const KernelProfile& k, const SmModel& model, const GpuSpec& gpu,
                                        bool calibrated);

// The `inputs` parameter's value: true for "calibrated", false for "counted"; anything else throws
// std::invalid_argument naming `who` ("interference model markov", "policy kernelet").
bool parse_calibrated_inputs(const std::string& value, const std::string& who);

// The `split` parameter's value: "blocks" or "warps" (SmModel::split); anything else throws std::invalid_argument
// naming `who`.
SchedulerSplit parse_scheduler_split(const std::string& value, const std::string& who);

}  // namespace gpusched::kernelet
