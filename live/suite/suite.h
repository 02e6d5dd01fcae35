// The suite of real CUDA benchmark kernels (live/suite/*.cu). Each kernel is a per-block device function, so
// the same code runs under a normal launch, sliced (a block offset), and under the executor; the launcher
// below runs it with or without per-block instrumentation (%globaltimer at the block's start and end, and
// %smid). Inputs are generated on the GPU; `check` compares a small run with a CPU reference.
//
// This header is plain C++ (no CUDA types), so the host code compiled by g++ can use it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "live/executor/exec_types.h"
#include "live/executor/fused_types.h"

namespace gpusched::live {

// Waits for the whole device (cudaDeviceSynchronize), throwing on an error.
void synchronize();

// One block's record: written by thread 0 of the block.
struct DeviceBlockRecord {
  std::uint64_t start_ns = 0;  // %globaltimer at the block's first instruction
  std::uint64_t end_ns = 0;    // %globaltimer after the block's last barrier
  std::uint64_t point_ns = 0;  // %globaltimer at the block's first non-idempotent operation (0: none)
  std::uint32_t smid = 0;
  std::uint32_t warps_done = 0;  // warp-stamped instrumentation: warps finished (zeroed before the launch)
};

// How the instrumented kernel stamps a block's end: after a block-wide barrier (thread 0 stamps); by the last
// of its warps to finish (an atomic count per block, no barrier); or by every warp into its own slot, the block's
// end being the latest (no barrier, no atomic). LastWarp and PerWarp need the records zeroed first; PerWarp
// needs kMaxWarpsPerBlock end slots per block after the records (record_buffer_bytes).
enum class Stamping { Barrier, LastWarp, PerWarp };
inline constexpr int kMaxWarpsPerBlock = 32;
inline std::size_t record_buffer_bytes(int blocks) {
  return static_cast<std::size_t>(blocks) * (sizeof(DeviceBlockRecord) + kMaxWarpsPerBlock * sizeof(std::uint64_t));
}
// The per-warp end slots of a record buffer.
inline std::uint64_t* warp_end_slots(DeviceBlockRecord* records, int blocks) {
  return reinterpret_cast<std::uint64_t*>(records + blocks);
}

struct LaunchShape {
  int blocks = 1;
  int threads = 128;
  int dynamic_smem = 0;  // bytes of dynamic shared memory (padding lowers the residency)
};

// Function attributes as cudaFuncGetAttributes reports them.
struct KernelAttributes {
  int registers_per_thread = 0;
  int static_smem = 0;
  int max_threads_per_block = 0;
  int local_bytes = 0;
};

// A device buffer of a kernel's data: what time-sharing keeps in host memory between its micro-kernels (all of them
// are restored to the GPU, the written ones are saved back).
struct StateBuffer {
  void* device = nullptr;
  std::size_t bytes = 0;
  bool written = false;
};

class SuiteKernel {
 public:
  virtual ~SuiteKernel() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Sizes: "small" (checked against the CPU) and problem sizes by name ("s1", "s2").
  virtual LaunchShape shape(const std::string& size) const = 0;
  // Allocates and generates inputs on the GPU (seeded); frees what an earlier setup allocated.
  virtual void setup(const std::string& size, std::uint64_t seed) = 0;
  // Launches blocks [offset, offset + shape.blocks) on `stream` (a cudaStream_t as void*), instrumented when
  // `records` is not null (device memory, one record per block of the launch).
  virtual void launch(const LaunchShape& shape, int block_offset, DeviceBlockRecord* records, void* stream) = 0;
  // The same blocks run by `workers` resident workers of the kernel's shape, each admitting itself on its SM while
  // fewer than `cap` of this grid's workers are there (the rest leave at once) and then running blocks of the range
  // in turn until none is left, each recorded as `launch` records it (records must not be null). `counters`: device
  // memory of `sm_count` + 1 zeroed words (per-SM admissions, then the next block). A part of a plan held to the
  // plan's blocks an SM (gpusched-live validate --capped-parts; docs/validation.md, "What the hardware makes of a plan
  // in parts").
  // `done` (device memory, or null): counts every block of the range once it has run.
  virtual void launch_capped(const LaunchShape& shape, int block_offset, int workers, int cap, int sm_count,
                             unsigned* counters, DeviceBlockRecord* records, std::uint32_t* done, void* stream) = 0;
  // As `launch` with records (not null), each block adding one to `done` (device memory) once it has stamped its end,
  // after its writes: a part of a launch that another launch waits for (run_native), which waits for the count
  // instead of for an event recorded behind the part.
  virtual void launch_counted(const LaunchShape& shape, int block_offset, DeviceBlockRecord* records,
                              std::uint32_t* done, void* stream) = 0;
  // Which instrumentation `launch` uses when it records (default: a barrier, then thread 0 stamps; the
  // last-warp variant measured no cheaper, docs/live.md).
  void set_stamping(Stamping s) { stamping_ = s; }
  // Runs the small size and compares with the CPU reference; returns "" or what differs.
  std::string check() {
    setup("small", 7);
    launch(shape("small"), 0, nullptr, nullptr);
    synchronize();
    return verify();
  }
  // Compares the outputs of the small size (set up with seed 7 and run) with the CPU reference.
  virtual std::string verify() = 0;
  // Runs `workers` worker blocks of the executor (live/executor) on `stream`: each takes the entries of its own
  // SM's queue in `q`; or, where `q.hardware_placed` is set, one worker per entry, placed by the hardware.
  virtual void execute(const ExecQueues& q, int workers, int dynamic_smem, void* stream) = 0;
  // Runs one part of a plan that stops and resumes blocks as a grid of `workers` blocks on `stream`, worker w running
  // entry w of `q` (exec_device.cuh, part_pieces_kernel): with safe points where `q.claims` is set.
  virtual void execute_part(const ExecQueues& q, int workers, int dynamic_smem, void* stream) = 0;
  virtual KernelAttributes executor_attributes() const = 0;
  // Blocks per SM of the executor's worker kernel (its registers may differ from the plain kernel's), in its
  // variant with safe points (`stops`: some block may be stopped) or without.
  virtual int executor_occupancy(int threads, int dynamic_smem, bool stops) const = 0;
  // Blocks per SM of the kernel that runs a launch whose placement is left to the hardware
  // (ExecQueues::hardware_placed).
  virtual int hardware_placed_occupancy(int threads, int dynamic_smem) const = 0;
  // Blocks per SM of the kernel that runs one part of a plan that stops and resumes blocks (execute_part), with safe
  // points (`stops`) or without. The hardware places its workers as the plan's blocks, so it must hold as many an SM as
  // the recorded kernel (`gpusched-live occupancy-check` fails where it holds fewer).
  virtual int part_occupancy(int threads, int dynamic_smem, bool stops) const = 0;
  // How a block can be stopped under the executor: -1, it has no safe point (it can only be drained); otherwise
  // it can be flushed and switched out at safe points, saving this many floats per thread.
  virtual int switch_values_per_thread() const = 0;
  // The body the fused worker runs for this kernel (live/executor/fused_worker.cu) with the current size's
  // arguments; `threads` is left to the caller.
  virtual BodyArgs fused_args() const = 0;
  virtual KernelAttributes attributes() const = 0;
  // Blocks per SM the hardware allows at this block size and dynamic shared memory
  // (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
  virtual int occupancy(int threads, int dynamic_smem) const = 0;
  // Raises the kernel's dynamic shared-memory limit (needed above 48 KB).
  virtual void allow_dynamic_smem(int bytes) = 0;
  // Sets the preferred shared-memory carveout (cudaFuncAttributePreferredSharedMemoryCarveout, percent of the
  // largest; -1: the driver's choice) of every variant of the kernel (validate --shared-carveout; docs/validation.md,
  // "One carveout for every kernel").
  virtual void prefer_shared_carveout(int percent) = 0;
  // Fraction of a block's progress after which it is no longer idempotent (1: idempotent throughout).
  virtual double idempotent_until() const { return 1.0; }
  // Device memory the current size's data takes, and the part the kernel writes.
  virtual std::int64_t footprint_bytes() const { return 0; }
  virtual std::int64_t dirty_bytes() const { return 0; }
  // The current size's device buffers (after setup).
  virtual std::vector<StateBuffer> state_buffers() const = 0;

 protected:
  Stamping stamping_ = Stamping::Barrier;
};

// All suite kernels, by name.
std::vector<std::unique_ptr<SuiteKernel>> make_suite();

// The smallest step of %globaltimer seen on the current device, in ns.
std::uint64_t measure_globaltimer_resolution();

// Launches a kernel that misbehaves on purpose, for the error-path tests: "hang" spins until the process
// ends, "error" writes to an invalid address (cudaErrorIllegalAddress).
void launch_fault_kernel(const std::string& kind, void* stream);
// Throws std::invalid_argument unless `kind` is one launch_fault_kernel knows: an executor checks before it starts
// anything, so that a mistyped --inject-fault refuses the run instead of failing it halfway.
void check_fault_kind(const std::string& kind);

}  // namespace gpusched::live
