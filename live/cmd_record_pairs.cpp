// gpusched-live record-pairs: suite kernels run together on the same SMs, every block stamped, written as co-run
// records (core/corun_records.h; docs/interference.md, "Measured co-runs").
//
// A co-run is one wave of each kernel: kernel A launched with k blocks per SM (k x SMs blocks) and kernel B with
// m per SM, back to back on two streams, where k and m are fractions of each kernel's own occupancy limit whose
// sum is at most 1, so both fit on every SM at once and the hardware places both grids' blocks at the launch.
// The reference is the same one-wave launch alone. Which kernel is launched first alternates (two orders per
// repeat), since the second one's blocks start a few microseconds after the first one's. The stamps say which
// blocks shared an SM and for how long; each victim block's exposure to a partner is the partner's blocks on its
// SM, time-weighted over its life (and, for comparison, counted at its start).
//
// `--sms N` confines everything (co-runs and the references alone) to a green context of about N SMs, with the
// same blocks per SM: the SM-local effect of a partner without the load of 132 SMs on the memory system.
// `--apart` (with --sms) puts the first kernel of each pair on those N SMs and the second on all the others: no SM
// is shared, so what slows a kernel is only the GPU-wide load of the other (docs/interference.md, "Where the
// slowdown comes from").
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <tuple>

#include "core/corun_records.h"
#include "core/store/store.h"
#include "live/commands.h"
#include "live/cuda_check.h"
#include "live/device_spec.h"
#include "live/executor/green_contexts.h"
#include "live/suite/suite.h"
#include "live/suite_binding.h"

namespace gpusched::live {
namespace {

struct PairsArgs {
  std::vector<std::string> kernels{"all"};
  std::string size = "s1", out;
  std::vector<std::string> mixes{"0.5:0.5", "0.25:0.75", "0.75:0.25"};
  std::vector<std::string> triples{"sgemm+xtea+gather", "blackscholes+mriq+spmv", "stencil+sad+histogram",
                                   "sgemm+gather+mriq"};
  int repeats = 3;
  std::uint64_t seed = 1;
  double timeout_s = 60;
  int sms = 0;         // 0: every SM; else a green context of about this many
  bool apart = false;  // with sms: the pair's second kernel on the other SMs
};

// Where a kernel's grid runs: its SMs' count (blocks = blocks per SM x this) and streams there.
struct Lane {
  int sms = 0;
  cudaStream_t streams[3]{};
};

struct Member {
  std::unique_ptr<SuiteKernel> kernel;
  std::string profile;  // "sgemm-s1"
  LaunchShape base;
  int full = 1;
  double bytes_per_block = 0;
  DeviceBlockRecord* records = nullptr;
};

struct Block {
  std::uint64_t start = 0, end = 0;
  int sm = 0;
};

class PairRecorder {
 public:
  // lanes: where each member runs (lane_of), lane 0 by default.
  PairRecorder(std::vector<Member>& members, std::vector<Lane> lanes, double timeout_s)
      : members_(members), lanes_(std::move(lanes)), lane_of_(members.size(), 0), timeout_s_(timeout_s) {}

  void set_lane(int member, int lane) { lane_of_[static_cast<std::size_t>(member)] = lane; }

  // One wave of each (member, blocks per SM), launched in this order back to back; the blocks of each.
  std::vector<std::vector<Block>> run(const std::vector<std::pair<int, int>>& group) {
    std::vector<cudaStream_t> streams;
    std::vector<int> grid;  // blocks of each launch
    for (std::size_t i = 0; i < group.size(); ++i) {
      const Lane& lane = lanes_[static_cast<std::size_t>(lane_of_[static_cast<std::size_t>(group[i].first)])];
      streams.push_back(lane.streams[i]);
      grid.push_back(group[i].second * lane.sms);
    }
    for (std::size_t i = 0; i < group.size(); ++i) {
      const auto& m = members_[static_cast<std::size_t>(group[i].first)];
      GPUSCHED_CUDA(cudaMemsetAsync(m.records, 0, record_buffer_bytes(grid[i]), streams[i]));
    }
    for (std::size_t i = 0; i < group.size(); ++i) GPUSCHED_CUDA(cudaStreamSynchronize(streams[i]));
    for (std::size_t i = 0; i < group.size(); ++i) {
      auto& m = members_[static_cast<std::size_t>(group[i].first)];
      LaunchShape s = m.base;
      s.blocks = grid[i];
      m.kernel->launch(s, 0, m.records, streams[i]);
    }
    std::vector<std::vector<Block>> out;
    for (std::size_t i = 0; i < group.size(); ++i) {
      auto& m = members_[static_cast<std::size_t>(group[i].first)];
      wait_for(streams[i], timeout_s_, m.profile);
      std::vector<DeviceBlockRecord> host(static_cast<std::size_t>(grid[i]));
      GPUSCHED_CUDA(
          cudaMemcpy(host.data(), m.records, host.size() * sizeof(DeviceBlockRecord), cudaMemcpyDeviceToHost));
      std::vector<Block> blocks;
      for (std::size_t b = 0; b < host.size(); ++b) {
        if (host[b].start_ns == 0 || host[b].end_ns < host[b].start_ns)
          throw LiveError(fmt::format("{}: block {} has no record", m.profile, b));
        blocks.push_back({host[b].start_ns, host[b].end_ns, static_cast<int>(host[b].smid)});
      }
      out.push_back(std::move(blocks));
    }
    return out;
  }

  // Mean block time of a member alone at `k` blocks per SM, over `repeats` one-wave launches (cached).
  double alone_mean(int member, int k, int repeats) {
    const auto key = std::make_tuple(member, k, lane_of_[static_cast<std::size_t>(member)]);
    if (auto it = alone_.find(key); it != alone_.end()) return it->second;
    double sum = 0;
    std::size_t n = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto blocks = run({{member, k}});  // kept alive: a range-for over run(...).front() would dangle
      for (const auto& b : blocks.front()) {
        sum += static_cast<double>(b.end - b.start);
        ++n;
      }
    }
    return alone_[key] = sum / static_cast<double>(std::max<std::size_t>(1, n));
  }

 private:
  std::vector<Member>& members_;
  std::vector<Lane> lanes_;
  std::vector<int> lane_of_;
  double timeout_s_;
  std::map<std::tuple<int, int, int>, double> alone_;
};

// Exposure of each victim block to a partner: the partner's blocks on its SM, time-weighted over its life, and at
// its start; averaged over the victim's blocks. With the victim's own blocks as `partner` it is the victim's own
// residency (the block itself counts 1 in both).
std::pair<double, double> exposure(const std::vector<Block>& victim, const std::vector<Block>& partner) {
  std::map<int, std::vector<const Block*>> on_sm;
  for (const auto& p : partner) on_sm[p.sm].push_back(&p);
  double weighted = 0, at_start = 0;
  for (const auto& v : victim) {
    const auto it = on_sm.find(v.sm);
    if (it == on_sm.end() || v.end <= v.start) continue;
    double overlap = 0;
    int present = 0;
    for (const Block* p : it->second) {
      const auto lo = std::max(v.start, p->start), hi = std::min(v.end, p->end);
      if (hi > lo) overlap += static_cast<double>(hi - lo);
      present += p->start <= v.start && v.start < p->end;
    }
    weighted += overlap / static_cast<double>(v.end - v.start);
    at_start += present;
  }
  const double n = static_cast<double>(std::max<std::size_t>(1, victim.size()));
  return {weighted / n, at_start / n};
}

double mean_time(const std::vector<Block>& blocks) {
  double s = 0;
  for (const auto& b : blocks) s += static_cast<double>(b.end - b.start);
  return s / static_cast<double>(std::max<std::size_t>(1, blocks.size()));
}

std::vector<double> parse_mix(const std::string& text) {
  std::vector<double> f;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ':')) {
    try {
      std::size_t used = 0;
      f.push_back(std::stod(part, &used));
      if (used != part.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw std::invalid_argument("--mix \"" + text + "\": expected fractions like 0.5:0.5, found \"" + part + "\"");
    }
  }
  double sum = 0;
  for (double x : f) {
    if (!(x > 0 && x <= 1)) throw std::invalid_argument("--mix \"" + text + "\": each fraction must be in (0, 1]");
    sum += x;
  }
  if (f.size() != 2 || sum > 1 + 1e-9)
    throw std::invalid_argument("--mix \"" + text + "\": expected two fractions of at most 1 in all");
  return f;
}

int record_pairs_command(const PairsArgs& a) {
  if (a.apart && a.sms == 0) throw std::invalid_argument("--apart needs --sms N (the first kernel's SMs)");
  const auto devices = list_devices();
  const auto& dev = devices.front();
  const int sms = dev.spec.sm_count;
  std::vector<std::vector<double>> mixes;
  for (const auto& m : a.mixes) mixes.push_back(parse_mix(m));

  std::vector<Member> members;
  std::map<std::string, int> index;
  for (const auto& name : suite_kernel_names(a.kernels)) {
    Member m;
    m.kernel = make_suite_kernel(name);
    m.kernel->setup(a.size, a.seed);
    m.base = m.kernel->shape(a.size);
    m.profile = m.kernel->name() + "-" + a.size;
    m.full = m.kernel->occupancy(m.base.threads, m.base.dynamic_smem);
    m.bytes_per_block = static_cast<double>(m.kernel->footprint_bytes()) / m.base.blocks;
    GPUSCHED_CUDA(cudaMalloc(&m.records, record_buffer_bytes(m.full * sms)));
    m.kernel->launch(m.base, 0, nullptr, nullptr);  // warm-up
    index[name] = static_cast<int>(members.size());
    members.push_back(std::move(m));
  }
  synchronize();
  // Lanes: every SM on plain streams, or green contexts (the first ~N SMs; with --apart also the rest).
  std::unique_ptr<GreenPartitions> green;
  std::vector<Lane> lanes(1);
  std::string placement = "every SM";
  if (a.sms > 0) {
    green = std::make_unique<GreenPartitions>(0);
    const auto& groups = green->group_sms();
    std::vector<int> near, rest;
    int taken = 0;
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
      if (taken < a.sms) {
        near.push_back(g);
        taken += static_cast<int>(groups[static_cast<std::size_t>(g)].size());
      } else {
        rest.push_back(g);
      }
    }
    if (a.apart && rest.empty()) throw std::invalid_argument("--apart: --sms leaves no other SMs");
    auto lane_of_groups = [&](const std::vector<int>& of) {
      Lane lane;
      const auto& ctx = green->context(of);
      lane.sms = static_cast<int>(ctx.sms.size());
      for (auto& st : lane.streams) st = green->create_stream(ctx);
      return lane;
    };
    lanes[0] = lane_of_groups(near);
    placement = fmt::format("a green context of {} SMs", lanes[0].sms);
    if (a.apart) {
      lanes.push_back(lane_of_groups(rest));
      placement = fmt::format("apart: first kernel on a green context of {} SMs, second on one of the other {}",
                              lanes[0].sms, lanes[1].sms);
    }
  } else {
    lanes[0].sms = sms;
    for (auto& st : lanes[0].streams) GPUSCHED_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  }
  fmt::print("placement: {}\n", placement);
  const std::string tag = a.sms > 0 ? fmt::format("@{}{}sm", a.apart ? "apart" : "", lanes[0].sms) : "";
  PairRecorder rec(members, lanes, a.timeout_s);

  CoRunTable table;
  auto add_rows = [&](const std::string& run, int repeat, const std::vector<std::pair<int, int>>& group,
                      const std::vector<std::vector<Block>>& blocks) {
    for (std::size_t v = 0; v < group.size(); ++v) {
      const Member& vm = members[static_cast<std::size_t>(group[v].first)];
      CoRunRecord r;
      r.run = run;
      r.repeat = repeat;
      r.victim = vm.profile;
      r.victim_full = vm.full;
      r.victim_blocks_per_sm = group[v].second;
      r.victim_bytes_per_block = vm.bytes_per_block;
      r.blocks = static_cast<std::int64_t>(blocks[v].size());
      r.alone_mean_ns = rec.alone_mean(group[v].first, group[v].second, a.repeats);
      r.corun_mean_ns = mean_time(blocks[v]);
      // As placed by the hardware, which may differ from the k launched per SM (docs/interference.md, "The victim's
      // own residency").
      std::tie(r.victim_exposure, r.victim_exposure_at_start) = exposure(blocks[v], blocks[v]);
      for (std::size_t p = 0; p < group.size(); ++p) {
        if (p == v) continue;
        const Member& pm = members[static_cast<std::size_t>(group[p].first)];
        const auto [weighted, at_start] = exposure(blocks[v], blocks[p]);
        r.partners.push_back({pm.profile, pm.full, group[p].second, weighted, at_start});
      }
      table.records.push_back(std::move(r));
    }
  };
  auto blocks_at = [](const Member& m, double f) { return std::max(1, static_cast<int>(f * m.full + 1e-9)); };

  fmt::print("{:<16} {:<16} {:>5} {:>5} {:>10} {:>10} {:>10}\n", "victim", "partner", "k", "m", "slowdown", "exposure",
             "own");
  for (std::size_t i = 0; i < members.size(); ++i)
    for (std::size_t j = i + 1; j < members.size(); ++j)
      for (const auto& mix : mixes) {
        const int k = blocks_at(members[i], mix[0]), m = blocks_at(members[j], mix[1]);
        const std::string name =
            fmt::format("{}+{}@{:.2f}:{:.2f}{}", members[i].profile, members[j].profile, mix[0], mix[1], tag);
        if (a.apart) {  // i on the first lane, j on the other: in both launch orders
          rec.set_lane(static_cast<int>(i), 0);
          rec.set_lane(static_cast<int>(j), 1);
        }
        const std::size_t first_row = table.records.size();
        for (int r = 1; r <= a.repeats; ++r) {
          const std::vector<std::pair<int, int>> ab{{static_cast<int>(i), k}, {static_cast<int>(j), m}};
          const std::vector<std::pair<int, int>> ba{ab[1], ab[0]};
          add_rows(name + "/ab", r, ab, rec.run(ab));
          add_rows(name + "/ba", r, ba, rec.run(ba));
        }
        // Summary: mean slowdown of each side over the repeats and orders.
        for (const auto& victim : {members[i].profile, members[j].profile}) {
          double s = 0, e = 0, own = 0;
          int n = 0;
          for (std::size_t row = first_row; row < table.records.size(); ++row)
            if (table.records[row].victim == victim) {
              s += table.records[row].slowdown();
              e += table.records[row].partners.front().exposure;
              own += table.records[row].victim_exposure;
              ++n;
            }
          const bool is_i = victim == members[i].profile;
          fmt::print("{:<16} {:<16} {:>5} {:>5} {:>10.3f} {:>10.2f} {:>10.2f}\n", victim,
                     is_i ? members[j].profile : members[i].profile, is_i ? k : m, is_i ? m : k, s / n, e / n, own / n);
        }
      }
  for (const auto& t : a.apart ? std::vector<std::string>{} : a.triples) {
    std::vector<std::pair<int, int>> group;
    std::stringstream ss(t);
    std::string part;
    std::string name;
    while (std::getline(ss, part, '+')) {
      const auto it = index.find(part);
      if (it == index.end()) {
        fmt::print("triple {}: {} was not recorded here; skipped\n", t, part);
        group.clear();
        break;
      }
      group.emplace_back(it->second, blocks_at(members[static_cast<std::size_t>(it->second)], 1.0 / 3));
      if (!name.empty()) name.push_back('+');
      name.append(members[static_cast<std::size_t>(it->second)].profile);
    }
    if (group.size() != 3) continue;
    for (int r = 1; r <= a.repeats; ++r) {
      add_rows(name + "@thirds" + tag + "/abc", r, group, rec.run(group));
      const std::vector<std::pair<int, int>> cba{group[2], group[1], group[0]};
      add_rows(name + "@thirds" + tag + "/cba", r, cba, rec.run(cba));
    }
    fmt::print("triple {}: recorded ({} repeats, two orders)\n", name, a.repeats);
  }
  for (auto& m : members) cudaFree(m.records);
  for (auto& lane : lanes)
    for (auto st : lane.streams) cudaStreamDestroy(st);

  table.provenance["device"] = dev.name;
  table.provenance["driver"] = dev.driver;
  table.provenance["cuda_runtime"] = dev.runtime;
  table.provenance["gpu"] = dev.preset ? dev.preset->name : "";
  table.provenance["sm_count"] = std::to_string(sms);
  table.provenance["placement"] = placement;
  table.provenance["recorded_at"] = store::utc_now_iso8601();
  std::string mixes_text;
  for (const auto& m : a.mixes) {
    if (!mixes_text.empty()) mixes_text.push_back(' ');
    mixes_text.append(m);
  }
  table.provenance["command"] =
      fmt::format("gpusched-live record-pairs --size {} --repeats {} --seed {} --mix {}{}{}", a.size, a.repeats, a.seed,
                  mixes_text, a.sms > 0 ? fmt::format(" --sms {}", a.sms) : "", a.apart ? " --apart" : "");
  table.provenance["method"] =
      "one wave of each kernel (k and m blocks per SM) launched back to back on two streams; alone: the same launch "
      "alone; block time = end - start stamped after a block barrier; victim_exposure: the victim's own blocks on "
      "its block's SM as placed";
  write_corun_records(a.out, table);
  fmt::print("{} co-run records written to {}\n", table.records.size(), a.out);
  return 0;
}

}  // namespace

void add_record_pairs_command(CLI::App& app, int& result) {
  auto a = std::make_shared<PairsArgs>();
  auto* cmd = app.add_subcommand(
      "record-pairs",
      "Run pairs (and a few triples) of suite kernels together on the same SMs, every block stamped, "
      "and write co-run records");
  cmd->add_option("--kernel", a->kernels, "Suite kernels (repeatable; default all)");
  cmd->add_option("--size", a->size, "Problem size whose block shape is used (s1, s2)");
  cmd->add_option("--mix", a->mixes,
                  "Block mixes as fractions of each kernel's own occupancy, summing to at most 1 (repeatable; default "
                  "0.5:0.5 0.25:0.75 0.75:0.25)");
  cmd->add_option("--triple", a->triples,
                  "Mixes of three kernels at a third of each one's occupancy, as a+b+c (repeatable)");
  cmd->add_option("--repeats", a->repeats, "Repeats of each co-run (each in both launch orders)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--seed", a->seed, "Seed for the generated inputs");
  cmd->add_option("--timeout", a->timeout_s, "Watchdog: seconds a launch may take")->check(CLI::PositiveNumber);
  cmd->add_option("--out", a->out, "Co-run records file to write (CSV)")->required();
  cmd->add_option("--sms", a->sms,
                  "Run on a green context of about this many SMs (co-runs and references alone; default every SM)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--apart", a->apart,
                "With --sms: each pair's first kernel on those SMs, the second on all the others (no SM shared)");
  cmd->callback([a, &result] { result = record_pairs_command(*a); });
}

}  // namespace gpusched::live
