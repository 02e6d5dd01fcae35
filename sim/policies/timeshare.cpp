// timeshare: Share-a-GPU's cooperative time-sharing (seed 004). Every launch runs as a sequence of
// micro-kernels (a fixed number of its blocks, from a time slice and its block time or given directly);
// one launch at a time runs on a GPU, in round robin over the launches that requested a slice.
//
// The kernel control block of each launch goes through Fig. 3's states, recorded as phases in the
// Schedule: Wait (requested a slice, queued), RestoreState (its device memory is being filled from host
// memory over PCIe), ReadyToLaunch, Running (a micro-kernel, after its launch overhead), SaveState (its
// dirty bytes going back to host memory), and Finish (the end of its last span). Algorithms 1-2: a launch
// registers (per native kernel call), requests a slice, is told to prepare when it is at the head of the
// queue and its memory fits beside what the GPU holds (double buffering: it restores while another runs),
// and launches when the GPU is free. When a micro-kernel ends, its launch yields only if another launch is
// ready to run on that GPU (or the queue's head cannot get memory until it leaves); otherwise it launches
// its next micro-kernel with no transfer ("if there are no other processes waiting"). Saving frees its
// memory and it requests its next slice at the back of the queue. Transfers share one PCIe link per node
// (or per GPU) one after another, which is what Eq. 1's bound T_slice > (S_prev + S_next) / PCIe assumes.
//
// Several GPUs: the queue's head goes to any GPU free to prepare it; a launch marked block_coalesced may
// run micro-kernels on several GPUs at once, each instance holding and moving only its share of the data.
// docs/policies/timeshare.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <stdexcept>

#include "sim/policies/issue.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class TimesharePolicy final : public Policy {
 public:
  explicit TimesharePolicy(const Params& p)
      : slice_ns_(p.get_double("slice_ms") * 1e6),
        microkernel_blocks_(p.get_int("microkernel_blocks")),
        overhead_ns_(static_cast<TimeNs>(std::llround(p.get_double("microkernel_overhead_us") * 1000.0))),
        registration_ns_(static_cast<TimeNs>(std::llround(p.get_double("registration_us") * 1000.0))),
        pcie_gbps_(p.get_double("pcie_gbps")),
        shared_link_(p.get_string("pcie") == "shared"),
        first_restore_free_(p.get_string("first_restore") == "free"),
        intra_when_idle_(p.get_string("intra_kernel") == "idle") {
    const auto& intra = p.get_string("intra_kernel");
    if (intra != "always" && intra != "idle")
      throw std::invalid_argument("parameter 'intra_kernel' expects always or idle, found \"" + intra + "\"");
    const auto& first = p.get_string("first_restore");
    if (first != "free" && first != "upload")
      throw std::invalid_argument("parameter 'first_restore' expects free or upload, found \"" + first + "\"");
    if (!(slice_ns_ > 0)) throw std::invalid_argument("parameter 'slice_ms' must be > 0");
    if (microkernel_blocks_ < 0) throw std::invalid_argument("parameter 'microkernel_blocks' must be >= 0");
    if (overhead_ns_ < 0 || registration_ns_ < 0)
      throw std::invalid_argument("parameters 'microkernel_overhead_us' and 'registration_us' must be >= 0");
    if (pcie_gbps_ < 0) throw std::invalid_argument("parameter 'pcie_gbps' must be >= 0");
    const auto& link = p.get_string("pcie");
    if (link != "shared" && link != "per-gpu")
      throw std::invalid_argument("parameter 'pcie' expects shared or per-gpu, found \"" + link + "\"");
  }

  std::string name() const override { return "timeshare"; }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (gpus_.empty()) init(v);
    for (const auto& e : events) {
      switch (e.kind) {
        case EventKind::LaunchReleased:
          register_launch(v, a, e.launch);
          break;
        case EventKind::BlockFinished:
          block_finished(v, a, e);
          break;
        case EventKind::Timer:
          timer(v, a, e.tag);
          break;
        default:
          break;
      }
    }
    schedule(v, a);
  }

  std::vector<std::pair<std::string, double>> metrics() const override {
    std::vector<std::pair<std::string, double>> out{{"microkernels", static_cast<double>(microkernels_)},
                                                    {"bytes_to_device", static_cast<double>(bytes_in_)},
                                                    {"bytes_to_host", static_cast<double>(bytes_out_)},
                                                    {"slice_ns", slice_ns_},
                                                    {"slice_lower_bound_ns", lower_bound_ns_},
                                                    {"transfers_waiting_ns", static_cast<double>(link_wait_)}};
    // Each tenant's slices and share of them (Figure 6), over the whole run.
    std::int64_t total = 0;
    for (const auto& [_, n] : slices_by_tenant_) total += n;
    for (const auto& [name, n] : slices_by_tenant_) {
      out.emplace_back("slices." + name, static_cast<double>(n));
      out.emplace_back("slice_share." + name, total > 0 ? static_cast<double>(n) / static_cast<double>(total) : 0.0);
    }
    return out;
  }

 private:
  enum TimerKind : std::int64_t {
    kRegistered = 0,
    kRestored = 1,
    kSaved = 2,
    kLaunch = 3,
    kEvicted = 4,
    kFinalSave = 5
  };
  static std::int64_t tag(TimerKind k, std::int64_t id) { return (id << 3) | k; }

  struct Instance {  // one launch's kernel control block on one GPU
    std::int32_t launch = -1;
    int gpu = -1;
    int residency = -1;
    PhaseState state = PhaseState::Wait;
    std::int64_t left = 0;     // blocks of its micro-kernel not yet dispatched
    std::int64_t running = 0;  // blocks of its micro-kernel dispatched and not finished
  };
  // A tenant's state in one GPU's memory. It outlives the launch that brought it: the tenant's next kernel
  // call finds its data there unless it was saved to make room ("if there are no other processes waiting"
  // nothing moves).
  struct Residency {
    std::int32_t tenant = -1;
    int gpu = -1;
    std::int64_t bytes = 0, dirty = 0;
    int users = 0;  // live instances using it
    bool saving = false;
    std::int32_t last_launch = -1;
    bool alive = false;
  };
  struct Gpu {
    int running = -1;   // instance on the GPU (a micro-kernel, or its launch overhead)
    int prepared = -1;  // instance restoring or ready to launch
    std::int64_t used = 0;
  };

  void init(const EngineView& v) {
    gpus_.assign(static_cast<std::size_t>(v.gpu_count()), Gpu{});
    link_free_.assign(shared_link_ ? 1 : static_cast<std::size_t>(v.gpu_count()), 0);
    assigned_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    mk_blocks_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    on_gpu_before_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    bandwidth_ = pcie_gbps_ > 0 ? pcie_gbps_ : v.gpu().pcie_bandwidth_gbps;
    // Eq. 1, T_slice > (S_prev + S_next) / PCIe: while one launch runs a slice, the launch before it saves
    // its dirty bytes and the launch after it restores its footprint, one after the other on the link.
    // The largest of each bounds every pair (with two tenants prev and next are the same launch).
    std::int64_t first = 0, second = 0;
    for (std::int32_t l = 0; l < v.launch_count(); ++l) {
      first = std::max(first, v.launch(l).kernel->dirty_bytes);
      second = std::max(second, v.launch(l).kernel->memory_footprint_bytes);
    }
    lower_bound_ns_ = static_cast<double>(first + second) / bandwidth_;
  }

  std::int64_t microkernel_size(const EngineView& v, std::int32_t l) const {
    const auto& L = v.launch(l);
    if (microkernel_blocks_ > 0) return std::min<std::int64_t>(microkernel_blocks_, L.total_blocks);
    // Whole waves that fit in the slice (at least one): a micro-kernel of N waves takes about N block times.
    const double block = std::max(1.0, L.kernel->mean_block_ns());
    const auto waves = std::max<std::int64_t>(1, static_cast<std::int64_t>(slice_ns_ / block));
    std::int64_t n = std::min<std::int64_t>(L.total_blocks, waves * L.residency * v.sms_per_gpu());
    // A block-coalesced launch shorter than a slice still gets one micro-kernel per GPU, so that "the
    // available multiple GPUs can be put to use" (our reading: the paper does not say how it sizes them).
    if (L.block_coalesced && v.gpu_count() > 1)
      n = std::min<std::int64_t>(n, (L.total_blocks + v.gpu_count() - 1) / v.gpu_count());
    return std::max<std::int64_t>(1, n);
  }

  // Device memory of launch l's state on one GPU and what it saves: the whole footprint, or for a
  // block-coalesced launch the share of one micro-kernel's blocks.
  std::pair<std::int64_t, std::int64_t> instance_bytes(const EngineView& v, std::int32_t l) const {
    const auto& L = v.launch(l);
    const auto& k = *L.kernel;
    if (!L.block_coalesced) return {k.memory_footprint_bytes, k.dirty_bytes};
    const double share =
        static_cast<double>(mk_blocks_[static_cast<std::size_t>(l)]) / static_cast<double>(L.total_blocks);
    return {static_cast<std::int64_t>(std::ceil(static_cast<double>(k.memory_footprint_bytes) * share)),
            static_cast<std::int64_t>(std::ceil(static_cast<double>(k.dirty_bytes) * share))};
  }

  // A transfer on the PCIe link of `gpu`: queued behind the link's earlier transfers.
  TimeNs transfer(const EngineView& v, int gpu, std::int64_t bytes) {
    if (bytes <= 0) return v.now();  // nothing to move
    auto& free = link_free_[shared_link_ ? 0 : static_cast<std::size_t>(gpu)];
    const TimeNs start = std::max(v.now(), free);
    link_wait_ += start - v.now();
    free = start + static_cast<TimeNs>(std::llround(static_cast<double>(bytes) / bandwidth_));
    return free;
  }

  void register_launch(const EngineView& v, Actions& a, std::int32_t l) {
    const auto& L = v.launch(l);
    a.allow_any_gpu(l);
    mk_blocks_[static_cast<std::size_t>(l)] = microkernel_size(v, l);
    if (instance_bytes(v, l).first > v.gpu().memory_bytes)
      throw std::invalid_argument(
          fmt::format("timeshare: launch {} (kernel '{}') needs {} bytes of device memory; {} has {}", l,
                      L.kernel->name, instance_bytes(v, l).first, v.gpu().name, v.gpu().memory_bytes));
    a.set_phase(l, -1, PhaseState::Wait);
    a.set_timer(v.now() + registration_ns_, tag(kRegistered, l));
  }

  void timer(const EngineView& v, Actions& a, std::int64_t t) {
    const auto kind = static_cast<TimerKind>(t & 7);
    const auto id = t >> 3;
    switch (kind) {
      case kRegistered:
        queue_.push_back(static_cast<std::int32_t>(id));
        break;
      case kRestored: {
        auto& in = instances_[static_cast<std::size_t>(id)];
        in.state = PhaseState::ReadyToLaunch;
        a.set_phase(in.launch, in.gpu, in.state);
        break;
      }
      case kSaved: {  // an instance that yielded: its state is on the host, it asks for its next slice
        auto& in = instances_[static_cast<std::size_t>(id)];
        const std::int32_t l = in.launch;
        free_residency(in.residency);
        end_instance(a, static_cast<int>(id));
        queue_.push_back(l);
        a.set_phase(l, -1, PhaseState::Wait);
        break;
      }
      case kFinalSave: {  // a launch's last micro-kernel yielded: its state is on the host
        auto& in = instances_[static_cast<std::size_t>(id)];
        free_residency(in.residency);
        end_instance(a, static_cast<int>(id));
        break;
      }
      case kEvicted: {  // an idle tenant's state written back to make room
        auto& r = residencies_[static_cast<std::size_t>(id)];
        a.set_phase(r.last_launch, r.gpu, std::nullopt);
        free_residency(static_cast<int>(id));
        break;
      }
      case kLaunch:
        dispatch(v, a, static_cast<int>(id));
        break;
    }
  }

  int find_residency(std::int32_t tenant, int gpu) const {
    for (std::size_t i = 0; i < residencies_.size(); ++i) {
      const auto& r = residencies_[i];
      if (r.alive && r.tenant == tenant && r.gpu == gpu) return static_cast<int>(i);
    }
    return -1;
  }

  void free_residency(int id) {
    auto& r = residencies_[static_cast<std::size_t>(id)];
    gpus_[static_cast<std::size_t>(r.gpu)].used -= r.bytes;
    r.alive = false;
  }

  void end_instance(Actions& a, int id) {
    auto& in = instances_[static_cast<std::size_t>(id)];
    a.set_phase(in.launch, in.gpu, std::nullopt);
    if (in.residency >= 0) --residencies_[static_cast<std::size_t>(in.residency)].users;
    in.launch = -1;
    free_ids_.push_back(id);
  }

  // Bytes launch l must bring to `gpu` (what its tenant has there already counts), or -1 if it cannot
  // go there now: its tenant's state is being saved there, or (one GPU at a time) lives on another GPU.
  std::int64_t extra_bytes(const EngineView& v, std::int32_t l, int gpu) const {
    const auto t = v.launch(l).tenant;
    const std::int64_t need = instance_bytes(v, l).first;
    const int here = find_residency(t, gpu);
    if (here >= 0) {
      const auto& r = residencies_[static_cast<std::size_t>(here)];
      if (r.saving || r.users > 0) return -1;  // one instance of a tenant per GPU
      return std::max<std::int64_t>(0, need - r.bytes);
    }
    if (!v.launch(l).block_coalesced)
      for (const auto& r : residencies_)
        if (r.alive && r.tenant == t) return -1;  // its data is on another GPU: it goes back there
    return need;
  }

  std::int64_t idle_bytes(int gpu) const {
    std::int64_t b = 0;
    for (const auto& r : residencies_)
      if (r.alive && r.gpu == gpu && r.users == 0 && !r.saving) b += r.bytes;
    return b;
  }

  // Writes idle tenants' state on `gpu` back to the host until `bytes` more fit (largest first).
  void evict_for(const EngineView& v, Actions& a, int gpu, std::int64_t bytes) {
    auto& g = gpus_[static_cast<std::size_t>(gpu)];
    std::int64_t freeing = 0;
    for (const auto& r : residencies_)
      if (r.alive && r.gpu == gpu && r.saving) freeing += r.bytes;
    while (g.used - freeing + bytes > v.gpu().memory_bytes) {
      int victim = -1;
      for (std::size_t i = 0; i < residencies_.size(); ++i) {
        const auto& r = residencies_[i];
        if (r.alive && r.gpu == gpu && r.users == 0 && !r.saving &&
            (victim < 0 || r.bytes > residencies_[static_cast<std::size_t>(victim)].bytes))
          victim = static_cast<int>(i);
      }
      if (victim < 0) return;
      auto& r = residencies_[static_cast<std::size_t>(victim)];
      r.saving = true;
      freeing += r.bytes;
      a.set_phase(r.last_launch, gpu, PhaseState::SaveState);
      bytes_out_ += r.dirty;
      a.set_timer(transfer(v, gpu, r.dirty), tag(kEvicted, victim));
    }
  }

  // Drops queue heads with nothing left to run (a block-coalesced launch whose blocks other GPUs took).
  void drop_spent_heads(const EngineView& v, Actions& a) {
    while (!queue_.empty()) {
      const std::int32_t l = queue_.front();
      const bool spent =
          v.launch(l).phase == LaunchPhase::Finished || (v.launch(l).block_coalesced && unclaimed(v, l) <= 0);
      if (!spent) return;
      queue_.pop_front();
      if (std::find(queue_.begin(), queue_.end(), l) == queue_.end()) a.set_phase(l, -1, std::nullopt);
    }
  }

  // Blocks of `l` no running or prepared instance will take: room for another instance of a coalesced launch.
  std::int64_t unclaimed(const EngineView& v, std::int32_t l) const {
    std::int64_t claimed = assigned_[static_cast<std::size_t>(l)];
    for (const auto& g : gpus_)
      if (g.prepared >= 0 && instances_[static_cast<std::size_t>(g.prepared)].launch == l)
        claimed += mk_blocks_[static_cast<std::size_t>(l)];
    return v.launch(l).total_blocks - claimed;
  }

  void schedule(const EngineView& v, Actions& a) {
    for (bool progress = true; progress;) {
      progress = false;
      drop_spent_heads(v, a);
      for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
        auto& gpu = gpus_[static_cast<std::size_t>(g)];
        // LaunchKernel: the GPU is free and a prepared launch is ready.
        if (gpu.running < 0 && gpu.prepared >= 0 &&
            instances_[static_cast<std::size_t>(gpu.prepared)].state == PhaseState::ReadyToLaunch) {
          const int id = gpu.prepared;
          gpu.prepared = -1;
          start_microkernel(v, a, id);
          progress = true;
        }
        // PrepareState: the head of the queue brings its state here if it fits beside what the GPU holds,
        // after writing idle tenants' state back if that makes room.
        if (gpu.prepared >= 0 || queue_.empty()) continue;
        const auto pick = next_request(v, g);
        const std::int32_t l = *pick;
        const std::int64_t extra = extra_bytes(v, l, g);
        if (extra < 0) continue;
        if (gpu.used + extra > v.gpu().memory_bytes) {
          evict_for(v, a, g, extra);
          continue;
        }
        queue_.erase(pick);
        prepare(v, a, l, g, extra);
        progress = true;
      }
    }
  }

  // The request a free GPU serves: the queue's head, except that with intra_kernel=idle a block-coalesced launch
  // already running or prepared on another GPU waits behind every other launch's request, so that its second
  // instance only takes a GPU that would otherwise be idle ("If there are N GPUs and M processes where M < N,
  // then some GPUs would remain idle. In order to increase GPU utilization, ...", section IV-A).
  std::deque<std::int32_t>::iterator next_request(const EngineView& v, int gpu) {
    if (!intra_when_idle_) return queue_.begin();
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (!v.launch(*it).block_coalesced || !in_service_elsewhere(*it, gpu)) return it;
    return queue_.begin();
  }

  bool in_service_elsewhere(std::int32_t l, int gpu) const {
    for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
      const auto& s = gpus_[static_cast<std::size_t>(g)];
      if (g != gpu && ((s.running >= 0 && instances_[static_cast<std::size_t>(s.running)].launch == l) ||
                       (s.prepared >= 0 && instances_[static_cast<std::size_t>(s.prepared)].launch == l)))
        return true;
    }
    return false;
  }

  void prepare(const EngineView& v, Actions& a, std::int32_t l, int g, std::int64_t extra) {
    int id;
    if (!free_ids_.empty()) {
      id = free_ids_.back();
      free_ids_.pop_back();
    } else {
      id = static_cast<int>(instances_.size());
      instances_.emplace_back();
    }
    const auto [bytes, dirty] = instance_bytes(v, l);
    int r = find_residency(v.launch(l).tenant, g);
    if (r < 0) {
      r = static_cast<int>(residencies_.size());
      for (std::size_t i = 0; i < residencies_.size(); ++i)
        if (!residencies_[i].alive) r = static_cast<int>(i);
      if (r == static_cast<int>(residencies_.size())) residencies_.emplace_back();
      residencies_[static_cast<std::size_t>(r)] = Residency{v.launch(l).tenant, g, 0, 0, 0, false, l, true};
    }
    auto& res = residencies_[static_cast<std::size_t>(r)];
    if (res.last_launch != l && res.users == 0) a.set_phase(res.last_launch, g, std::nullopt);
    res.bytes += extra;
    res.dirty = std::max(res.dirty, dirty);
    ++res.users;
    res.last_launch = l;
    (void)bytes;
    gpus_[static_cast<std::size_t>(g)].used += extra;
    gpus_[static_cast<std::size_t>(g)].prepared = id;
    instances_[static_cast<std::size_t>(id)] = Instance{l, g, r, PhaseState::RestoreState, 0, 0};
    if (std::find(queue_.begin(), queue_.end(), l) == queue_.end()) a.set_phase(l, -1, std::nullopt);
    // first_restore=free: the launch's data is on the device when it arrives, as every other policy assumes,
    // so its first restore on a GPU moves nothing (its memory is still taken).
    auto& seen = on_gpu_before_[static_cast<std::size_t>(l)];
    const bool first_here = (seen & (std::uint64_t{1} << g)) == 0;
    seen |= std::uint64_t{1} << g;
    if (extra > 0 && !(first_restore_free_ && first_here)) {
      a.set_phase(l, g, PhaseState::RestoreState);
      bytes_in_ += extra;
      a.set_timer(transfer(v, g, extra), tag(kRestored, id));
    } else {  // its tenant's data is here already
      instances_[static_cast<std::size_t>(id)].state = PhaseState::ReadyToLaunch;
      a.set_phase(l, g, PhaseState::ReadyToLaunch);
    }
    // A block-coalesced launch with work beyond this instance asks for another slice (another GPU).
    if (v.launch(l).block_coalesced && unclaimed(v, l) > 0 &&
        std::find(queue_.begin(), queue_.end(), l) == queue_.end())
      queue_.push_back(l);
  }

  void start_microkernel(const EngineView& v, Actions& a, int id) {
    auto& in = instances_[static_cast<std::size_t>(id)];
    const auto l = in.launch;
    auto& assigned = assigned_[static_cast<std::size_t>(l)];
    const std::int64_t n = std::min(mk_blocks_[static_cast<std::size_t>(l)], v.launch(l).total_blocks - assigned);
    auto& gpu = gpus_[static_cast<std::size_t>(in.gpu)];
    if (n <= 0) {  // another GPU took the rest of a coalesced launch
      end_instance(a, id);
      return;
    }
    gpu.running = id;
    assigned += n;
    a.set_slice_end(l, assigned);
    in.left = n;
    in.running = 0;
    in.state = PhaseState::Running;
    a.set_phase(l, in.gpu, std::nullopt);  // one Running span per micro-kernel
    a.set_phase(l, in.gpu, PhaseState::Running);
    ++microkernels_;
    ++slices_by_tenant_[v.tenant_name(v.launch(l).tenant)];
    a.set_timer(v.now() + overhead_ns_, tag(kLaunch, id));
  }

  void dispatch(const EngineView& v, Actions& a, int id) {
    auto& in = instances_[static_cast<std::size_t>(id)];
    const int first = in.gpu * v.sms_per_gpu();
    for (int sm = first; sm < first + v.sms_per_gpu() && in.left > 0; ++sm) {
      const std::int64_t k = a.fill(in.launch, sm, in.left);
      in.left -= k;
      in.running += k;
    }
  }

  void block_finished(const EngineView& v, Actions& a, const EngineEvent& e) {
    const int g = e.sm / v.sms_per_gpu();
    const int id = gpus_[static_cast<std::size_t>(g)].running;
    if (id < 0) return;
    auto& in = instances_[static_cast<std::size_t>(id)];
    if (in.launch != e.launch) return;
    --in.running;
    if (in.left > 0) {
      const std::int64_t k = a.fill(in.launch, e.sm, in.left);
      in.left -= k;
      in.running += k;
    }
    if (in.left == 0 && in.running == 0) microkernel_done(v, a, id);
  }

  void microkernel_done(const EngineView& v, Actions& a, int id) {
    auto& in = instances_[static_cast<std::size_t>(id)];
    auto& gpu = gpus_[static_cast<std::size_t>(in.gpu)];
    gpu.running = -1;
    const auto l = in.launch;
    auto& r = residencies_[static_cast<std::size_t>(in.residency)];
    if (assigned_[static_cast<std::size_t>(l)] >= v.launch(l).total_blocks) {  // its last micro-kernel here
      // Algorithm 1 saves after every micro-kernel; with nobody waiting the data stays for the tenant's next
      // kernel call (and is written back later only if the memory is needed).
      if ((queue_.empty() && gpu.prepared < 0) || r.users > 1) {
        end_instance(a, id);
        return;
      }
      r.saving = true;
      in.state = PhaseState::SaveState;
      a.set_phase(l, in.gpu, in.state);
      bytes_out_ += r.dirty;
      a.set_timer(transfer(v, in.gpu, r.dirty), tag(kFinalSave, id));
      return;
    }
    // Yield only if someone can use the GPU now: a launch ready here, or a queue head that needs this
    // launch's memory to prepare. Otherwise run the next micro-kernel without moving any state.
    const bool ready_here =
        gpu.prepared >= 0 && instances_[static_cast<std::size_t>(gpu.prepared)].state == PhaseState::ReadyToLaunch;
    bool head_blocked = false;
    if (gpu.prepared < 0 && !queue_.empty()) {
      const std::int64_t extra = extra_bytes(v, queue_.front(), in.gpu);
      head_blocked = extra >= 0 && gpu.used - idle_bytes(in.gpu) + extra > v.gpu().memory_bytes;
    }
    if (!ready_here && !head_blocked) {
      start_microkernel(v, a, id);
      return;
    }
    r.saving = true;
    in.state = PhaseState::SaveState;
    a.set_phase(l, in.gpu, in.state);
    bytes_out_ += r.dirty;
    a.set_timer(transfer(v, in.gpu, r.dirty), tag(kSaved, id));
  }

  const double slice_ns_;
  const std::int64_t microkernel_blocks_;
  const TimeNs overhead_ns_, registration_ns_;
  const double pcie_gbps_;
  const bool shared_link_;
  double bandwidth_ = 1.0, lower_bound_ns_ = 0.0;
  std::vector<Gpu> gpus_;
  std::vector<Instance> instances_;
  std::vector<Residency> residencies_;
  std::vector<int> free_ids_;
  std::deque<std::int32_t> queue_;
  std::vector<TimeNs> link_free_;
  std::vector<std::int64_t> assigned_, mk_blocks_;
  std::vector<std::uint64_t> on_gpu_before_;  // per launch: the GPUs it has had an instance on (at most 64)
  const bool first_restore_free_;
  const bool intra_when_idle_;
  std::int64_t microkernels_ = 0, bytes_in_ = 0, bytes_out_ = 0;
  std::map<std::string, std::int64_t> slices_by_tenant_;
  TimeNs link_wait_ = 0;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, timeshare, "timeshare",
    "Share-a-GPU: round-robin time slices of micro-kernels, one launch per GPU at a time, device memory "
    "swapped to host over PCIe with double buffering (seed 004)",
    (std::vector<gpusched::sim::ParamSpec>{
        {"slice_ms", gpusched::sim::ParamType::Double, "100",
         "time slice: a micro-kernel is the whole waves of blocks that fit in it (at least one)"},
        {"microkernel_blocks", gpusched::sim::ParamType::Int, "0", "blocks per micro-kernel (0: from slice_ms)"},
        {"microkernel_overhead_us", gpusched::sim::ParamType::Double, "100",
         "per micro-kernel: the scheduler's messages and the launch (seed 004 Fig. 5 puts it well under 1 ms)"},
        {"registration_us", gpusched::sim::ParamType::Double, "1000",
         "per native kernel call: registering it with the scheduler (an assumption; the paper gives none)"},
        {"pcie_gbps", gpusched::sim::ParamType::Double, "0", "host-device bandwidth, GB/s (0: the GPU's)"},
        {"pcie", gpusched::sim::ParamType::String, "shared",
         "shared (one link for the node: transfers of all GPUs queue, as the paper observes) or per-gpu"},
        {"first_restore", gpusched::sim::ParamType::String, "free",
         "free (a launch's data is on the device when it arrives, as for every other policy) or upload (copied "
         "from host memory over PCIe by its first restore, as in seed 004's framework)"},
        {"intra_kernel", gpusched::sim::ParamType::String, "always",
         "several GPUs: a block-coalesced launch asks for another GPU at the back of the queue (always), or gets one "
         "only when no other launch waits for it (idle: the paper's motivation, fewer processes than GPUs)"}}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::TimesharePolicy>(p); })
