// The Simple Slicing runtime predictor of seed 001 (Pai et al., PACT 2014, section 4), built on the
// Staircase model (section 3.1). State per (kernel, SM) as in the paper's Table 1; updated on kernel
// launch, block start, block end and kernel end; a new slice starts for every kernel whenever any kernel
// launches or ends, and the first block to finish in a slice gives the block time t. The paper's
// Equations 1 and 2 were lost from its text; docs/predictor.md gives the reconstruction:
//   (1) T_sm = ceil(N / R) x t                      (Staircase: N blocks on the SM, residency R)
//   (2) T_pred = T_run + (N_total - N_done) x t / R (Simple Slicing: T_run corrects drift; no ceiling)
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/time.h"

namespace gpusched {

// Equation 1: runtime of `blocks` blocks on one SM at residency `residency`, each taking `block_time`.
TimeNs staircase_runtime(std::int64_t blocks, int residency, TimeNs block_time);

class SimpleSlicingPredictor {
 public:
  // Which of the whole-kernel readings below are kept up to date at every block start and end. A caller that never
  // asks for one spares its upkeep (under a long queue, a per-SM maximum's walk is a cache miss a block); asking
  // for one not kept throws std::logic_error.
  struct Tracking {
    bool max_remaining = true;  // max_remaining
    bool max_total = true;      // max_predicted_total
    bool gpu = true;            // gpu_remaining, gpu_predicted_total
  };
  // `sm_count`: SMs of the GPU; predictions are kept per SM for each kernel.
  explicit SimpleSlicingPredictor(int sm_count) : SimpleSlicingPredictor(sm_count, Tracking{}) {}
  SimpleSlicingPredictor(int sm_count, Tracking tracking);

  // OnLaunch: `blocks` in the grid, `max_residency` blocks per SM when alone. Starts a new slice for
  // every kernel already running.
  void on_launch(std::int32_t kernel, std::int64_t blocks, int max_residency, TimeNs now);
  void on_block_start(std::int32_t kernel, int sm, TimeNs now);
  // OnBlockEnd: `duration` of the block that ended. Updates T_pred for this (kernel, SM).
  void on_block_end(std::int32_t kernel, int sm, TimeNs duration, TimeNs now);
  // OnKernelEnd: starts a new slice for every other kernel.
  void on_kernel_end(std::int32_t kernel, TimeNs now);

  // Predicted remaining time of the kernel on one SM (T_pred - T_run), once the SM has a prediction.
  std::optional<TimeNs> remaining_on_sm(std::int32_t kernel, int sm) const;
  // Predicted finish of the kernel: the latest over SMs with predictions (now + remaining); nullopt
  // before any of its blocks has finished.
  std::optional<TimeNs> predicted_finish(std::int32_t kernel, TimeNs now) const;
  // T_pred on an SM (total runtime on that SM as predicted), if any.
  std::optional<TimeNs> predicted_total_on_sm(std::int32_t kernel, int sm) const;
  // The largest remaining_on_sm and predicted_total_on_sm over the kernel's SMs (nullopt before any of its
  // blocks has finished). Kept up to date as blocks start and end, so a policy comparing many queued
  // kernels pays O(1) per query instead of a pass over every SM (issue "Speed").
  std::optional<TimeNs> max_remaining(std::int32_t kernel) const;
  std::optional<TimeNs> max_predicted_total(std::int32_t kernel) const;
  // Whether any of the kernel's SMs has a prediction (one of its blocks has finished).
  bool has_prediction(std::int32_t kernel) const;

  // The kernel's remaining time from its blocks left over the whole GPU (not in the paper; srtf's
  // `remaining=gpu`): (B - blocks completed on any SM) / S x t / R, where t / R is the mean over the SMs with a
  // prediction of their slice's block time over its residency. Equation 2 without T_run, summed over the
  // GPU's blocks instead of one SM's: a launch that has run on a few SMs is not mistaken for one nearly done.
  // nullopt before any of its blocks has finished.
  std::optional<TimeNs> gpu_remaining(std::int32_t kernel) const;
  // The same rule's time alone: B / S x t / R.
  std::optional<TimeNs> gpu_predicted_total(std::int32_t kernel) const;

 private:
  struct SmState {            // Table 1
    TimeNs running = 0;       // T_run: time with at least one of the kernel's blocks resident
    TimeNs busy_since = 0;    // when `resident` last went from 0 to 1
    std::int64_t done = 0;    // blocks completed on this SM
    int resident = 0;         // blocks resident now
    int slice_residency = 0;  // R: resident blocks when the slice's sample block ended (itself included)
    TimeNs block_time = 0;    // t: duration of the first block to finish in the slice
    // The slice epoch (below) whose sample this SM took; -1: none yet. A new slice starts when the epoch moves on.
    std::int64_t sample_epoch = -1;
    bool has_prediction = false;
    double predicted = 0;  // T_pred
    TimeNs predicted_at = 0;
  };
  // Maximum over SMs, as an 8-ary tree (leaves: -1 for an SM without a prediction): a group of 8 siblings is one
  // 64-byte line, so a change walks 3 lines for 132 SMs, not the 8 levels of a binary tree (under a long queue
  // each walk is cache misses: docs/performance.md). Levels are stored leaves first, each padded to whole groups.
  struct MaxTree {
    static constexpr std::size_t kFan = 8;
    std::vector<TimeNs> node;
    // Each level's first node in `node`; the last level is the root alone. Kept inline (not a vector of its own) so
    // that a walk reads no line beside the nodes and the kernel's own.
    std::array<std::uint32_t, 12> level{};
    std::uint32_t levels = 0;
    void reset(std::size_t n);
    void set(std::size_t i, TimeNs value);
    TimeNs max() const { return node[level[levels - 1]]; }
  };
  struct Kernel {
    bool live = false;
    double blocks_per_sm = 0;           // N_total = blocks / SMs (uniform distribution, as the paper assumes)
    std::int64_t blocks = 0, done = 0;  // B and the blocks completed on every SM
    double rate_sum = 0;                // sum over SMs with a prediction of t / R
    int rate_count = 0;                 // SMs with a prediction
    int max_residency = 1;
    std::vector<SmState> sms;
    MaxTree remaining, total;  // remaining_on_sm and predicted_total_on_sm of every SM
  };
  TimeNs running_now(const SmState& s, TimeNs now) const;
  const Kernel* find(std::int32_t k) const;
  static TimeNs remaining_of(const SmState& s, TimeNs total);
  [[gnu::always_inline]] inline void refresh(Kernel& K, int sm, bool total_changed);
  Kernel& kernel(std::int32_t k);

  int sm_count_;
  Tracking tracking_;
  std::vector<Kernel> kernels_;
  // A new slice starts for every running kernel whenever any kernel launches or ends: instead of marking
  // every (kernel, SM), both bump this epoch, and an SM whose sample is of an older epoch is in a new slice.
  std::int64_t epoch_ = 0;
};

}  // namespace gpusched
