#include "sim/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>

namespace gpusched::sim {
namespace {

void append_row(std::string& out, const BlockPiece& p, const Workload& w) {
  const auto& l = w.launches[static_cast<std::size_t>(p.launch)];
  fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{}\n", l.id, w.kernels[l.kernel]->name, p.block, p.gpu,
                 p.sm, p.start, p.end, to_string(p.outcome));
}

}  // namespace

std::string schedule_csv_header() { return "launch,kernel,block,gpu,sm,start_ns,end_ns,outcome\n"; }

void write_schedule_csv(const std::string& path, const Schedule& s, const Workload& w) {
  AtomicFile f(path);
  std::string buf = schedule_csv_header();
  for (const auto& p : s.pieces) {
    append_row(buf, p, w);
    if (buf.size() > (1 << 16)) {
      f.write(buf);
      buf.clear();
    }
  }
  f.write(buf);
  f.commit();
}

void write_perfetto_json(const std::string& path, const Schedule& s, const Workload& w, const GpuSpec& gpu) {
  using nlohmann::json;
  // Pieces on one SM overlap, and duration events on one track must nest: give each piece a residency
  // slot (interval partitioning, lowest free slot first) and a track per (SM, slot).
  std::vector<std::size_t> order(s.pieces.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto &x = s.pieces[a], &y = s.pieces[b];
    if (x.gpu != y.gpu) return x.gpu < y.gpu;
    if (x.sm != y.sm) return x.sm < y.sm;
    return x.start < y.start;
  });
  json events = json::array();
  std::map<std::pair<int, int>, int> slots_per_sm;  // (gpu, sm) -> slots used
  auto us = [](TimeNs t) { return static_cast<double>(t) / 1000.0; };
  std::size_t i = 0;
  while (i < order.size()) {
    const int g = s.pieces[order[i]].gpu, sm = s.pieces[order[i]].sm;
    // Slots free at a time: min-heap of (end, slot); free slot ids reused lowest first.
    std::priority_queue<std::pair<TimeNs, int>, std::vector<std::pair<TimeNs, int>>, std::greater<>> busy;
    std::priority_queue<int, std::vector<int>, std::greater<>> free_slots;
    int used = 0;
    std::vector<std::pair<TimeNs, int>> counter;  // (time, +1/-1)
    for (; i < order.size() && s.pieces[order[i]].gpu == g && s.pieces[order[i]].sm == sm; ++i) {
      const auto& p = s.pieces[order[i]];
      while (!busy.empty() && busy.top().first <= p.start) {
        free_slots.push(busy.top().second);
        busy.pop();
      }
      int slot;
      if (!free_slots.empty()) {
        slot = free_slots.top();
        free_slots.pop();
      } else {
        slot = used++;
      }
      busy.emplace(p.end, slot);
      const auto& l = w.launches[static_cast<std::size_t>(p.launch)];
      events.push_back(json{{"name", l.id},
                            {"cat", std::string(to_string(p.outcome))},
                            {"ph", "X"},
                            {"pid", g},
                            {"tid", sm * 1000 + slot},
                            {"ts", us(p.start)},
                            {"dur", us(p.end - p.start)},
                            {"args",
                             {{"launch", l.id},
                              {"kernel", w.kernels[l.kernel]->name},
                              {"block", p.block},
                              {"sm", sm},
                              {"outcome", std::string(to_string(p.outcome))}}}});
      counter.emplace_back(p.start, 1);
      counter.emplace_back(p.end, -1);
    }
    slots_per_sm[{g, sm}] = used;
    std::sort(counter.begin(), counter.end());
    int level = 0;
    for (std::size_t k = 0; k < counter.size(); ++k) {
      level += counter[k].second;
      if (k + 1 < counter.size() && counter[k + 1].first == counter[k].first) continue;
      events.push_back(json{{"name", fmt::format("SM {} blocks", sm)},
                            {"ph", "C"},
                            {"pid", g},
                            {"ts", us(counter[k].first)},
                            {"args", {{"blocks", level}}}});
    }
  }
  for (const auto& [key, used] : slots_per_sm) {
    const auto [g, sm] = key;
    for (int slot = 0; slot < used; ++slot) {
      const int tid = sm * 1000 + slot;
      events.push_back(json{{"name", "thread_name"}, {"ph", "M"}, {"pid", g}, {"tid", tid},
                            {"args", {{"name", fmt::format("SM {:>3} slot {}", sm, slot)}}}});
      events.push_back(json{{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", g}, {"tid", tid},
                            {"args", {{"sort_index", tid}}}});
    }
  }
  // Launch phases (time-sharing states): a process of their own, one track per (launch, GPU).
  constexpr int kPhasePid = 1'000'000;
  std::map<std::pair<int, int>, bool> phase_tracks;
  for (const auto& ph : s.phases) {
    const auto& l = w.launches[static_cast<std::size_t>(ph.launch)];
    const int tid = ph.launch * 64 + ph.gpu + 1;
    phase_tracks[{ph.launch, ph.gpu}] = true;
    events.push_back(json{{"name", std::string(to_string(ph.state))},
                          {"cat", "phase"},
                          {"ph", "X"},
                          {"pid", kPhasePid},
                          {"tid", tid},
                          {"ts", us(ph.start)},
                          {"dur", us(ph.end - ph.start)},
                          {"args", {{"launch", l.id}, {"gpu", ph.gpu}, {"state", std::string(to_string(ph.state))}}}});
  }
  for (const auto& [key, _] : phase_tracks) {
    const int tid = key.first * 64 + key.second + 1;
    const auto& l = w.launches[static_cast<std::size_t>(key.first)];
    events.push_back(json{{"name", "thread_name"}, {"ph", "M"}, {"pid", kPhasePid}, {"tid", tid},
                          {"args", {{"name", key.second >= 0 ? fmt::format("{} on GPU {}", l.id, key.second) : l.id}}}});
  }
  if (!phase_tracks.empty())
    events.push_back(json{{"name", "process_name"}, {"ph", "M"}, {"pid", kPhasePid}, {"args", {{"name", "launch states"}}}});
  std::map<int, bool> gpus;
  for (const auto& [key, _] : slots_per_sm) gpus[key.first] = true;
  for (const auto& [g, _] : gpus)
    events.push_back(json{{"name", "process_name"}, {"ph", "M"}, {"pid", g},
                          {"args", {{"name", fmt::format("GPU {} ({})", g, gpu.name)}}}});
  const json doc{{"traceEvents", events}, {"displayTimeUnit", "ns"},
                 {"otherData", {{"workload", w.name}, {"gpu", gpu.name}}}};
  AtomicFile f(path);
  f.write(doc.dump());
  f.write("\n");
  f.commit();
}

std::string phases_csv_path(const std::string& schedule_csv) {
  const bool csv = schedule_csv.size() >= 4 && schedule_csv.compare(schedule_csv.size() - 4, 4, ".csv") == 0;
  return (csv ? schedule_csv.substr(0, schedule_csv.size() - 4) : schedule_csv) + ".phases.csv";
}

void write_phases_csv(const std::string& path, const Schedule& s, const Workload& w) {
  AtomicFile f(path);
  std::string buf = "launch,gpu,state,start_ns,end_ns\n";
  for (const auto& p : s.phases)
    fmt::format_to(std::back_inserter(buf), "{},{},{},{},{}\n", w.launches[static_cast<std::size_t>(p.launch)].id, p.gpu,
                   to_string(p.state), p.start, p.end);
  f.write(buf);
  f.commit();
}

void write_timeline(const std::string& path, const Schedule& s, const Workload& w, const GpuSpec& gpu) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    write_perfetto_json(path, s, w, gpu);
    return;
  }
  write_schedule_csv(path, s, w);
  if (!s.phases.empty()) write_phases_csv(phases_csv_path(path), s, w);
}

CsvScheduleStream::CsvScheduleStream(const std::string& path, const Workload& w) : file_(path), workload_(w) {
  buffer_ = schedule_csv_header();
}

void CsvScheduleStream::on_piece(const BlockPiece& p) {
  append_row(buffer_, p, workload_);
  if (buffer_.size() > (1 << 16)) {
    file_.write(buffer_);
    buffer_.clear();
  }
}

void CsvScheduleStream::commit() {
  file_.write(buffer_);
  buffer_.clear();
  file_.commit();
}

}  // namespace gpusched::sim
