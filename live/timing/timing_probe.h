// Probes of the GPU's front end (docs/live.md, "calibrate"): the host's clock against %globaltimer, the launch
// latency, the gap between two launches of one stream, the completion latency seen by a launch that waits on
// another stream's event, and the GPU-wide rate at which blocks are dispatched. Plain C++ header; the kernels are
// in timing_probe.cu.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "live/timing/race.h"

namespace gpusched::live {

// The host's monotonic clock (std::chrono::steady_clock), ns.
std::int64_t host_now_ns();

// %globaltimer = host_now_ns() + offset_ns, within rtt_ns / 2: from ping-pongs between the host and a one-thread
// kernel through mapped host memory, the one with the shortest round trip kept.
struct ClockSync {
  std::int64_t offset_ns = 0;
  std::int64_t rtt_ns = 0;
};
ClockSync sync_clocks(int rounds, double timeout_s);

// Each sample in ns. `samples` probes, the GPU idle before each.
// Host launch call (host clock read just before it) to the first instruction of a one-block kernel.
std::vector<std::int64_t> probe_launch_latency(const ClockSync& sync, int samples, double timeout_s);
// End of a one-block kernel (its last stamp) to the start of the next kernel queued behind it on the same stream.
std::vector<std::int64_t> probe_launch_gap(int samples, double timeout_s);
// End of a kernel on one stream to the start of a kernel on another stream that waits on an event recorded after
// the first.
std::vector<std::int64_t> probe_completion_latency(int samples, double timeout_s);
// The race between a stream successor and another stream's fresh launch on a busy GPU. Per sample: a predecessor P
// (one block of 1024 threads and most of the shared memory on every SM) beside a filler holding the SMs' other
// half; its stream successor S queued behind it; and a competitor C launched from the host on another stream around
// P's end. S and C each need the room P leaves, so whichever the GPU dispatches first fills it and the other waits.
// The host call times step from -spread_ns to +spread_ns around P's expected end (live/timing/race.h: the samples
// and their crossover).
std::vector<RaceSample> probe_successor_race(const ClockSync& sync, int samples, std::int64_t spread_ns,
                                             double timeout_s);

// Host launch call to the first instruction of a one-block kernel on the stream of the greatest priority while a
// filler of the least priority runs: `full`, the filler holds every thread slot of every SM with blocks of 5-15 us
// (the probe's block takes the room one of them leaves); otherwise one 32-thread block an SM, the GPU busy but with
// room. Samples whose probe did not start while the filler ran are counted, not kept.
struct BusyLaunchSamples {
  std::vector<std::int64_t> latency_ns;
  int not_busy = 0;
};
BusyLaunchSamples probe_busy_launch_latency(const ClockSync& sync, int samples, bool full, double timeout_s);

// ns per block GPU-wide: the time of launches of `large` against `small` empty blocks of `threads` threads (CUDA
// events, the median of `samples` each), difference over the difference in blocks.
std::vector<double> probe_dispatch_ns(int threads, int small, int large, int samples, double timeout_s);

// ns between two grid starts when `grids` one-block grids, each on a stream of its own behind a stream wait on one
// counter in mapped host memory, are released at once (how validate's gated parts are released): per sample, the
// first grid's start to the last one's over grids - 1 (docs/validation.md, "Grids the GPU starts a second").
std::vector<double> probe_grid_start_interval(int grids, int samples, double timeout_s);

// cuStreamWaitValue32 through the runtime's driver entry points (gpusched-live links the static runtime only);
// throws LiveError where the driver has none.
decltype(&::cuStreamWaitValue32) stream_wait_value32();

}  // namespace gpusched::live
