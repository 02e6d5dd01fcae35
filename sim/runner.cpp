#include "sim/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "core/corun_records.h"
#include "core/gpu_file.h"
#include "core/workload_io.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

// Records pieces with launch indices mapped back to workload order (a policy may resubmit launches).
class ScheduleRecorder final : public EngineObserver {
 public:
  ScheduleRecorder(Schedule& s, const std::vector<std::size_t>& to_workload)
      : schedule_(s), to_workload_(to_workload) {}
  void on_piece(const BlockPiece& p) override {
    schedule_.pieces.push_back(p);
    schedule_.pieces.back().launch = static_cast<std::int32_t>(to_workload_[static_cast<std::size_t>(p.launch)]);
  }
  void on_phase(const PhaseSpan& span) override {
    schedule_.phases.push_back(span);
    schedule_.phases.back().launch = static_cast<std::int32_t>(to_workload_[static_cast<std::size_t>(span.launch)]);
  }

 private:
  Schedule& schedule_;
  const std::vector<std::size_t>& to_workload_;
};

// Forwards pieces to another observer with workload launch indices.
class MappedObserver final : public EngineObserver {
 public:
  MappedObserver(EngineObserver& inner, const std::vector<std::size_t>& to_workload)
      : inner_(inner), map_(to_workload) {}
  void on_piece(const BlockPiece& p) override {
    BlockPiece q = p;
    q.launch = static_cast<std::int32_t>(map_[static_cast<std::size_t>(p.launch)]);
    inner_.on_piece(q);
  }
  void on_phase(const PhaseSpan& span) override {
    PhaseSpan q = span;
    q.launch = static_cast<std::int32_t>(map_[static_cast<std::size_t>(span.launch)]);
    inner_.on_phase(q);
  }

 private:
  EngineObserver& inner_;
  const std::vector<std::size_t>& map_;
};

// Block time spent alone: sums completed pieces.
class BlockTimeSum final : public EngineObserver {
 public:
  void on_piece(const BlockPiece& p) override { total += static_cast<double>(p.end - p.start); }
  double total = 0;
};

}  // namespace

std::string resolve_interference(const std::string& name, const Workload& w) {
  if (name != "auto") return name;
  const auto gpu_wide_fitted = [&] {
    for (const auto& k : w.kernels)
      if (k && (k->gpu_wide_share.value_or(0.0) > 0 || !k->gpu_wide_blocks.empty())) return true;
    return false;
  };
  for (const auto& k : w.kernels)
    if (k && !k->equivalent_blocks.empty()) return gpu_wide_fitted() ? "equivalent:gpu_wide=on" : "equivalent";
  for (const auto& k : w.kernels)
    if (k && !corun_file_beside(k->file).empty()) return "age";
  return "none";
}

// "name" or "name:key=value,key=value" (the form `gpusched crossval --model` and every command's --interference
// take): the model's name, with the spec's parameters added to `params` (the spec's win).
std::string split_model_spec(const std::string& spec, std::map<std::string, std::string>& params) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return spec;
  for (std::size_t p = colon + 1; p <= spec.size();) {
    const auto comma = std::min(spec.find(',', p), spec.size());
    const auto kv = spec.substr(p, comma - p);
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(
          fmt::format("interference model '{}': expected name:key=value[,key=value], found \"{}\"", spec, kv));
    params[kv.substr(0, eq)] = kv.substr(eq + 1);
    p = comma + 1;
  }
  return spec.substr(0, colon);
}

namespace {

std::unique_ptr<DurationModel> make_model(const std::string& spec,
                                          const std::map<std::string, std::string>& given_params) {
  auto params = given_params;
  const std::string name = split_model_spec(spec, params);
  const auto* info = Registry<DurationModel>::instance().find(name);
  if (!info)
    throw std::invalid_argument(
        fmt::format("unknown interference model '{}' (models: {})", name, Registry<DurationModel>::instance().names()));
  return info->make(Params::resolve("interference model " + name, info->params, params));
}

// Fractions of each per-SM limit one block takes (block slots, threads, warps, registers, shared memory).
// Per limit, the sum of resident blocks' fractions never exceeds 1 on an SM, so block time weighted by
// one limit's fraction, summed and divided by the SMs, bounds the makespan from below; the largest of
// the five is the area bound. (Weighting by each block's largest fraction would not be a bound: blocks
// that stress different limits pack together.)
std::array<double, 5> sm_fractions(const GpuSpec& g, const BlockFootprint& f) {
  return {1.0 / g.max_blocks_per_sm, static_cast<double>(f.threads) / g.max_threads_per_sm,
          static_cast<double>(f.warps) / g.max_warps_per_sm, static_cast<double>(f.registers) / g.registers_per_sm,
          g.shared_memory_per_sm > 0 ? static_cast<double>(f.shared_memory) / g.shared_memory_per_sm : 0.0};
}

}  // namespace

std::vector<std::string> all_policy_names() {
  std::vector<std::string> out;
  for (const auto* info : Registry<Policy>::instance().all()) out.push_back(info->name);
  return out;
}

LoadedWorkload load_workload_and_gpu(const std::string& path, const std::string& gpu_override, Warnings* warnings,
                                     const std::string& override_field, const std::string& how_to_choose) {
  Workload w = read_workload(path, warnings);
  const std::string name = gpu_override.empty() ? w.gpu : gpu_override;
  if (name.empty())
    throw std::invalid_argument(
        fmt::format("{}: the workload names no GPU; {} ({})", path, how_to_choose, gpu_preset_names()));
  GpuSpec gpu = resolve_gpu(name, warnings, {gpu_override.empty() ? path : "", 0, 0},
                            gpu_override.empty() ? "gpu" : override_field);
  return {std::move(w), std::move(gpu)};
}

void check_runnable(const Workload& w, const GpuSpec& gpu) {
  for (const auto& k : w.kernels) {
    const auto occ = compute_occupancy(gpu, k->shape());
    if (occ.blocks_per_sm == 0)
      throw std::invalid_argument(fmt::format("{}: kernel '{}' cannot run on {}: {}",
                                              k->file.empty() ? w.file : k->file, k->name, gpu.name, occ.reason));
    if (!k->primary_records() || k->primary_records()->sorted_durations.empty())
      throw std::invalid_argument(fmt::format("{}: kernel '{}' has no block records", k->file, k->name));
  }
}

AloneTime AloneTimeCache::get(const KernelProfile& kernel, std::uint64_t draw_key, const GpuSpec& gpu,
                              std::uint64_t seed, const std::string& interference,
                              const std::map<std::string, std::string>& interference_params) {
  // Draws matter only where some block has no record; otherwise every launch of the kernel is the same.
  const RecordSet* set = kernel.primary_records();
  const bool complete = set && set->recorded == kernel.block_count();
  std::string model_key = interference;
  for (const auto& [k, v] : interference_params) model_key += fmt::format(",{}={}", k, v);
  const auto key = std::make_tuple(&kernel, complete ? 0 : draw_key, gpu.name, seed, model_key);
  {
    std::lock_guard lock(mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  }
  LaunchSpec spec;
  spec.kernel = &kernel;
  spec.id = kernel.name;
  spec.draw_key = draw_key;
  const auto model = make_model(interference, interference_params);
  EngineConfig config{gpu, 1, seed, model.get(), {}};
  Engine engine(config, {spec});
  BlockTimeSum sum;
  engine.add_observer(&sum);
  const auto* serial = Registry<Policy>::instance().find("serial");
  auto policy = serial->make(Params::resolve("policy serial", serial->params, {}));
  engine.run(*policy);
  // From its arrival (t = 0): the launch latency is part of a launch's time alone as of its turnaround.
  const AloneTime result{engine.launches()[0].finish - engine.launches()[0].arrival, sum.total};
  std::lock_guard lock(mutex_);
  cache_.emplace(key, result);
  return result;
}

RunResult run_workload(const Workload& w, const GpuSpec& gpu, const RunOptions& o, AloneTimeCache& alone_cache) {
  const auto* info = Registry<Policy>::instance().find(o.policy);
  if (!info)
    throw std::invalid_argument(
        fmt::format("unknown policy '{}' (policies: {})", o.policy, Registry<Policy>::instance().names()));
  const Params params = Params::resolve("policy " + o.policy, info->params, o.policy_params);
  const std::shared_ptr<Policy> policy =
      o.policy_object ? o.policy_object : std::shared_ptr<Policy>(info->make(params));
  const auto model = make_model(o.interference, o.interference_params);
  check_runnable(w, gpu);

  RunResult result;
  result.workload = w.name;
  result.policy = o.policy;
  result.policy_params = params.canonical();
  result.gpu = gpu.name;
  result.gpu_count = o.gpu_count > 0 ? o.gpu_count : w.gpu_count;
  result.interference = o.interference;
  result.seed = o.seed;

  const std::size_t n = w.launches.size();
  std::vector<AloneTime> alone;
  std::vector<TimeNs> alone_times;
  for (std::size_t i = 0; i < n; ++i) {
    alone.push_back(
        alone_cache.get(*w.kernels[w.launches[i].kernel], i, gpu, o.seed, o.interference, o.interference_params));
    alone_times.push_back(alone.back().time);
  }
  // Engine launch k is workload launch to_workload[k]: the identity unless the policy resubmits.
  std::vector<std::size_t> to_workload(n);
  for (std::size_t i = 0; i < n; ++i) to_workload[i] = i;
  std::vector<std::vector<std::size_t>> predecessors(n);
  for (std::size_t i = 0; i < n; ++i) predecessors[i] = w.dag.predecessors(i);
  // The previous launch of each launch's stream (the engine gives stream order its own gap).
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> stream_predecessor(n, kNone);
  {
    std::map<std::string, std::size_t> last;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& stream = w.launches[i].stream;
      if (stream.empty()) continue;
      if (const auto it = last.find(stream); it != last.end()) stream_predecessor[i] = it->second;
      last[stream] = i;
    }
  }
  if (const auto sub = policy->resubmit(w, gpu, alone_times)) {
    if (sub->order.size() != n || sub->stream.size() != n)
      throw std::logic_error("policy " + o.policy + ": resubmission does not cover every launch");
    to_workload = sub->order;
    // The new streams replace the workload's stream order; explicit dependencies stay.
    std::map<std::string, std::size_t> last;
    for (std::size_t i = 0; i < n; ++i) predecessors[i] = w.launches[i].after;
    std::fill(stream_predecessor.begin(), stream_predecessor.end(), kNone);
    for (const std::size_t i : sub->order) {
      const auto& stream = sub->stream[i];
      if (stream.empty()) continue;
      if (const auto it = last.find(stream); it != last.end()) {
        predecessors[i].push_back(it->second);
        stream_predecessor[i] = it->second;
      }
      last[stream] = i;
    }
  }
  std::vector<std::size_t> to_engine(n);
  for (std::size_t k = 0; k < n; ++k) to_engine[to_workload[k]] = k;
  std::vector<LaunchSpec> specs;
  specs.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = to_workload[k];
    const auto& l = w.launches[i];
    LaunchSpec s;
    s.kernel = w.kernels[l.kernel].get();
    s.id = l.id;
    s.arrival = l.arrival;
    s.priority = l.priority;
    s.deadline = l.deadline;
    s.block_coalesced = l.block_coalesced;
    s.tenant = l.tenant;
    for (const std::size_t p : predecessors[i]) s.predecessors.push_back(to_engine[p]);
    if (stream_predecessor[i] != kNone)
      s.stream_predecessor = static_cast<std::int64_t>(to_engine[stream_predecessor[i]]);
    s.draw_key = i;
    s.alone = alone[i].time;
    specs.push_back(std::move(s));
  }
  const DurationModel* durations = o.interference_object      ? o.interference_object.get()
                                   : o.interference == "none" ? nullptr
                                                              : model.get();
  EngineConfig config{gpu, result.gpu_count, o.seed, durations, o.costs};
  Engine engine(config, std::move(specs));
  ScheduleRecorder recorder(result.schedule, to_workload);
  if (o.keep_schedule) {
    result.schedule.pieces.reserve(static_cast<std::size_t>(w.total_blocks()));  // at least one piece per block
    engine.add_observer(&recorder);
  }
  std::vector<std::unique_ptr<MappedObserver>> mapped;
  for (auto* obs : o.observers) {
    mapped.push_back(std::make_unique<MappedObserver>(*obs, to_workload));
    engine.add_observer(mapped.back().get());
  }
  engine.run(*policy);

  // Per-launch outcomes and metrics.
  std::array<double, 5> area{};
  for (std::size_t i = 0; i < n; ++i) {
    const auto& ls = engine.launches()[to_engine[i]];
    LaunchOutcome out;
    out.arrival = ls.arrival;
    out.release = ls.submitted;  // the start of its turnaround: the GPU's launch latency and gaps count in it
    out.first_dispatch = ls.first_dispatch;
    out.finish = ls.finish;
    out.alone = ls.alone;
    out.blocks = ls.total_blocks;
    out.killed = ls.killed;
    out.deadline_missed = w.launches[i].deadline && (ls.killed || ls.finish > *w.launches[i].deadline);
    result.launches.push_back(out);
    const auto fractions = sm_fractions(gpu, ls.footprint);
    for (std::size_t r = 0; r < area.size(); ++r) area[r] += alone[i].block_time * fractions[r];
  }
  result.metrics = compute_launch_metrics(result.launches, o.turnaround_from);
  auto& m = result.metrics;
  const int total_sms = gpu.sm_count * result.gpu_count;
  m.bound_area = static_cast<TimeNs>(*std::max_element(area.begin(), area.end()) / total_sms);
  m.bound = std::max(m.bound_area, m.bound_longest);
  m.makespan_over_bound = m.bound > 0 ? static_cast<double>(m.makespan) / static_cast<double>(m.bound) : 1.0;
  double busy = 0.0, warp_time = 0.0;
  for (const auto& sm : engine.sms()) {
    busy += static_cast<double>(sm.busy_time);
    warp_time += static_cast<double>(sm.warp_time);
  }
  if (m.makespan > 0) {
    const double capacity = static_cast<double>(total_sms) * static_cast<double>(m.makespan);
    m.sm_utilization = busy / capacity;
    m.warp_occupancy = warp_time / (capacity * gpu.max_warps_per_sm);
  }
  const auto& st = engine.stats();
  m.preemptions = st.preemptions;
  m.wasted_work = st.wasted_work;
  if (!st.preemption_latencies.empty()) {
    double sum = 0;
    for (TimeNs t : st.preemption_latencies) sum += static_cast<double>(t);
    m.mean_preemption_latency = static_cast<TimeNs>(sum / static_cast<double>(st.preemption_latencies.size()));
    m.max_preemption_latency = *std::max_element(st.preemption_latencies.begin(), st.preemption_latencies.end());
  }
  result.events = st.events;
  result.policy_metrics = policy->metrics();
  return result;
}

std::map<std::string, std::map<std::string, std::string>> parse_policy_sets(const std::vector<std::string>& sets,
                                                                            const std::vector<std::string>& policies,
                                                                            const std::string& policies_text) {
  std::map<std::string, std::map<std::string, std::string>> params;
  for (const auto& s : sets) {
    const auto dot = s.find('.'), eq = s.find('=');
    if (dot == std::string::npos || eq == std::string::npos || eq < dot)
      throw std::invalid_argument(fmt::format("--set: expected POLICY.PARAM=VALUE, found \"{}\"", s));
    const auto policy = s.substr(0, dot);
    if (std::find(policies.begin(), policies.end(), policy) == policies.end())
      throw std::invalid_argument(
          fmt::format("--set {}: policy '{}' is not among those run ({})", s, policy, policies_text));
    params[policy][s.substr(dot + 1, eq - dot - 1)] = s.substr(eq + 1);
  }
  return params;
}

}  // namespace gpusched::sim
