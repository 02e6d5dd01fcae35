// The busy-GPU race of gpusched-live calibrate (live/timing/timing_probe.cu, docs/live.md "The race on a busy
// GPU"): its samples and the crossover read from them. Plain C++, so the analysis is tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

namespace gpusched::live {

// One sample: x = the competitor's launch call (GPU clock) - the predecessor's last block end; whether the
// competitor's first block started before the stream successor's; the successor's first block after that end.
struct RaceSample {
  std::int64_t x_ns = 0;
  bool competitor_first = false;
  std::int64_t successor_after_ns = 0;
};

// The x at which the order flips: competitor first below it, successor first above. The threshold that misorders
// the fewest samples (ties: the lowest), placed midway between the two samples around it. `misordered` gets their
// count. All on one side: the outermost sample's x.
std::int64_t race_crossover_ns(std::vector<RaceSample> samples, int* misordered);

}  // namespace gpusched::live
