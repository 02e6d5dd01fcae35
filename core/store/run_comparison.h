// One stored run against another of the same workload: a prediction against its live measurement (issue #11's
// validation), or two simulations (two interference models, two policies). Per launch the turnaround error,
// per run the makespan, STP and ANTT errors and how far apart the two block-time distributions are.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/store/store.h"

namespace gpusched::store {

struct LaunchComparison {
  int index = 0;
  TimeNs turnaround = 0;            // of the run compared
  TimeNs reference_turnaround = 0;  // of the reference
  double relative_error = 0;        // (turnaround - reference) / reference; 0 when both are 0
  // Where relative_error comes from, in fractions of the reference turnaround, when both runs kept the launch's
  // blocks (the three sum to relative_error). A launch's turnaround is its wait for a first slot (release to its
  // first piece's start) plus its span (first start to last end), and the span is blocks x block time / width,
  // block time being the mean over its blocks of their pieces' summed time and width the mean pieces in flight
  // over the span. So, the reference's values marked _r:
  //   start_share    = (wait - wait_r) / turnaround_r                         (first slot later or earlier)
  //   duration_share = blocks x (block time - block time_r) / width_r / turnaround_r   (slower or faster blocks:
  //                    interference, block-time variance; the model's part when the reference is a prediction)
  //   width_share    = the rest: fewer or more slots held at once than the reference (the dispatch's part),
  //                    with whatever of the finish the last piece's end does not account for.
  std::optional<double> start_share, duration_share, width_share;
};

struct RunComparison {
  std::vector<LaunchComparison> launches;
  double mean_abs_turnaround_error = 0;  // mean over launches of |relative_error|
  double max_abs_turnaround_error = 0;
  double makespan_error = 0;  // (run - reference) / reference
  double stp_error = 0;
  double antt_error = 0;
  // Block times (a block's pieces summed, flushed and killed pieces left out), when both runs kept their blocks:
  // the two-sample Kolmogorov-Smirnov statistic (largest gap between the two empirical CDFs, 0..1) and the
  // ratio of the medians (run / reference).
  std::optional<double> block_time_ks;
  std::optional<double> block_time_median_ratio;
  std::size_t blocks = 0, reference_blocks = 0;
  // Over the launches decomposed: the mean of |start_share|, |duration_share| and |width_share|.
  std::optional<double> mean_abs_start_share, mean_abs_duration_share, mean_abs_width_share;
};

// Throws std::invalid_argument when the runs are of different workloads (content hashes differ).
RunComparison compare_runs(const RunRecord& run, const RunRecord& reference);

// The comparison as the `compare` and `validate` commands print it: a table of launches (with `per_launch`),
// then the run's errors.
std::string format_comparison(const RunRecord& run, const RunRecord& reference, const RunComparison& c,
                              bool per_launch = true);

// The two-sample Kolmogorov-Smirnov statistic of two samples (sorted in place); 0 when either is empty.
double ks_statistic(std::vector<double>& a, std::vector<double>& b);

}  // namespace gpusched::store
