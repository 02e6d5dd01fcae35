// How far a prediction is from a measured run, in the figures docs/validation.md reports (per-launch turnaround
// error median / p90 / max, makespan error, block-time KS) and the rows of docs/validation/native.csv. Errors are
// |measured - predicted| / measured. Plain C++: tested without a GPU.
#pragma once
#include <string>

#include "core/run_result.h"
#include "core/workload.h"

namespace gpusched {

struct PredictionErrors {
  std::size_t launches = 0;
  double turnaround_median_pct = 0, turnaround_p90_pct = 0, turnaround_max_pct = 0;
  double makespan_pct = 0;
  double block_ks = 0;
};

// A predicted piece's time as block stamps would show it: its block's recorded raw end - start scaled as the
// prediction scaled its slot occupancy (interference); the piece's own time where the block has no such records.
double raw_equivalent_ns(const Workload& w, const BlockPiece& predicted_piece);

// The block-time KS compares like with like: a measured piece's time is its stamps' end - start, so a predicted
// piece's is its block's recorded raw time scaled as the prediction scaled its slot occupancy (interference).
PredictionErrors prediction_errors(const Workload& w, const RunResult& measured, const RunResult& predicted);

// p-quantile by nearest rank (p in (0, 1]); 0 for none.
double nearest_rank(std::vector<double> v, double p);

inline constexpr const char* kNativeCsvHeader =
    "workload,gpu,policy,repeat,launches,turnaround_err_median_pct,turnaround_err_p90_pct,turnaround_err_max_pct,"
    "makespan_err_pct,block_ks";
std::string native_csv_row(const std::string& workload, const std::string& gpu, const std::string& policy, int repeat,
                           const PredictionErrors& e);
// Appends rows to a CSV file, writing the header first when the file is new or empty.
void append_csv_rows(const std::string& path, const std::string& header, const std::vector<std::string>& rows);

}  // namespace gpusched
