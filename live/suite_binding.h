// The suite kernels behind a workload's kernel profiles: a profile recorded by `gpusched-live record` is named
// "<kernel>-<size>" (sgemm-s1); validation runs that kernel at that size for every launch of the profile.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/workload.h"
#include "live/suite/suite.h"

namespace gpusched::live {

struct BoundSuite {
  std::vector<std::unique_ptr<SuiteKernel>> kernels;  // one per workload kernel, set up at its size
  std::vector<std::string> sizes;
};

// Throws std::invalid_argument naming the profile's file when a profile is not a suite kernel's recording or its
// grid or block size differs from the suite kernel's at that size.
BoundSuite bind_suite(const Workload& w, std::uint64_t seed);

// The suite kernel of this name (a fresh instance); throws std::invalid_argument listing the names.
std::unique_ptr<SuiteKernel> make_suite_kernel(const std::string& name);

// The names asked for, "all" standing for every suite kernel; unknown names are left to make_suite_kernel.
std::vector<std::string> suite_kernel_names(const std::vector<std::string>& asked);

// The median (upper middle for an even count); 0 for none.
double median(std::vector<double> v);

// Times batches of back-to-back launches on one stream with two CUDA events: `launch(j)` issues the j-th of `n`;
// returns milliseconds per launch. The process ends (exit_hung) when a batch outlives `timeout_s`.
class BatchTimer {
 public:
  BatchTimer(void* stream, double timeout_s, std::string what);
  ~BatchTimer();
  BatchTimer(const BatchTimer&) = delete;
  BatchTimer& operator=(const BatchTimer&) = delete;
  double ms_per_launch(int n, const std::function<void(int)>& launch);

 private:
  void* stream_;
  void* start_ = nullptr;
  void* end_ = nullptr;
  double timeout_s_;
  std::string what_;
};

// Launches per timed batch: about 2 ms worth for a launch of `one_ms`, between 1 and `most`. A single launch of a
// short kernel is within the GPU's launch-to-launch jitter.
int launches_per_batch(double one_ms, int most);

// Median time of `repeats` launches of the whole kernel, each timed alone by CUDA events after a warm-up (ns).
TimeNs time_alone(SuiteKernel& k, const LaunchShape& shape, int repeats, double timeout_s);

// Waits for `stream` (a cudaStream_t), ending the process after `timeout_s` (exit_hung).
void wait_for(void* stream, double timeout_s, const std::string& what);

}  // namespace gpusched::live
