// How long a dispatched block runs: its recorded duration (block i of the profile's primary record set;
// unrecorded blocks draw from the recorded distribution, seeded), adjusted by an interference model
// chosen by name (sim/interference/). Models register themselves like policies do.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/time.h"
#include "sim/params.h"

namespace gpusched::sim {

// Another launch's blocks on the same SM (for models that depend on who shares it).
struct CoRunner {
  const KernelProfile* kernel = nullptr;
  int blocks = 0;
};

struct DurationQuery {
  const KernelProfile* kernel = nullptr;
  const GpuSpec* gpu = nullptr;
  std::int64_t block = 0;
  std::uint64_t draw_base = 0;    // draw_base(seed, launch): the launch's stream of random draws
  int sm_resident_blocks = 1;     // blocks resident on the SM once this one is placed (all kernels)
  int sm_same_kernel_blocks = 1;  // blocks of this launch on the SM, this one included
  // Other launches' blocks on the SM once this one is placed; filled only for models whose
  // needs_co_runners() is true (it costs a pass over the SM's resident blocks).
  const CoRunner* co_runners = nullptr;
  int co_runner_count = 0;
  TimeNs start = 0;  // when the block starts (its dispatch, the engine's clock)
};

// Mixes the run's seed and a launch's identity (its workload index) once per launch.
std::uint64_t draw_base(std::uint64_t seed, std::uint64_t draw_key);

// The recorded duration of a block, or a seeded draw from the recorded ones where it has no record.
// Counter-based (a hash of the launch's draw base and the block index), so a block's draw does not
// depend on when or where it is dispatched.
TimeNs recorded_duration(const KernelProfile& k, std::int64_t block, std::uint64_t draw_base);

// One launch's running blocks on an SM, for models applied over a block's life (DurationModel::over_life).
struct SmGroup {
  const KernelProfile* kernel = nullptr;
  int blocks = 0;  // its running blocks on the SM
  // Its age on the GPU: the launch's first dispatch (ns); groups come oldest first (ties by launch index).
  TimeNs first_dispatch = 0;
};

class DurationModel {
 public:
  virtual ~DurationModel() = default;
  // The engine calls this once before a run: a model that keeps what it read of the run's kernel profiles (by their
  // addresses) forgets it here, since profiles do not change during a run but may between runs of one model. Code that
  // asks a model directly and changes a profile between questions calls it too.
  virtual void begin_run() const {}
  // The block's work: how long it runs at rate 1 (for a model applied at dispatch, how long it runs).
  virtual TimeNs duration(const DurationQuery& q) const = 0;
  virtual bool needs_co_runners() const { return false; }
  // True for a model applied over each block's life: whenever the running blocks on an SM change, the engine asks
  // group_rates for each launch's rate there (work per ns, 1 = as recorded) and re-times every running block's end
  // from the work it has left (docs/interference.md, "Slowdown over a block's life").
  virtual bool over_life() const { return false; }
  // True when a launch alone on its SM always runs at rate 1 (its recording): the engine then skips SMs that hold
  // one launch whose blocks are all at rate 1.
  virtual bool lone_launch_at_rate_one() const { return true; }
  // True when launches of one kernel sharing an SM, with no other kernel there, always run at rate 1 (the model takes
  // them as the kernel's own blocks, which its recording holds): the engine then also skips SMs that hold several
  // launches of one kernel, all at rate 1. Under a long queue of one kernel (issue "Speed") most SMs are such.
  virtual bool one_kernel_at_rate_one() const { return false; }
  // rates[i] = the speed of groups[i]'s blocks with these groups on one SM (the engine clamps it to [1e-3, 1e3]).
  virtual void group_rates(const GpuSpec& /*gpu*/, std::span<const SmGroup> groups, std::span<double> rates) const {
    std::fill(rates.begin(), rates.end(), 1.0);
    (void)groups;
  }
  // True for an over-life model whose rates also depend on what runs on the rest of the GPU: the engine then keeps
  // each kernel's resident blocks over each GPU and asks group_rates_on_gpu instead of group_rates. The engine
  // re-times an SM's blocks when that SM's blocks change, reading the GPU's load as it is then, and every SM of a GPU
  // when a kernel comes to it or leaves it; a change in a kernel's count elsewhere reaches an SM at its next change
  // (docs/interference.md, "A GPU-wide share of the residency").
  virtual bool gpu_wide() const { return false; }
  // group_rates with the GPU's load: gpu_load[i] is one kernel's resident blocks over the SM's GPU (its
  // first_dispatch unused), gpu_sms the GPU's SM count.
  virtual void group_rates_on_gpu(const GpuSpec& gpu, std::span<const SmGroup> groups,
                                  std::span<const SmGroup> gpu_load, int gpu_sms, std::span<double> rates) const {
    (void)gpu_load;
    (void)gpu_sms;
    group_rates(gpu, groups, rates);
  }
};

}  // namespace gpusched::sim
