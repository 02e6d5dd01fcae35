#include "live/executor/timeshare_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace gpusched::live {

bool is_time_shared(const Schedule& plan) {
  return std::any_of(plan.phases.begin(), plan.phases.end(),
                     [](const PhaseSpan& p) { return p.state == PhaseState::Running; });
}

std::vector<TimeshareStep> build_timeshare_steps(const Schedule& plan, std::size_t launches) {
  std::vector<TimeshareStep> steps;
  // Each launch's Running phases in time order, to find the one a piece started in.
  std::vector<std::vector<std::size_t>> running(launches);
  for (const auto& p : plan.phases) {
    if (p.launch < 0 || static_cast<std::size_t>(p.launch) >= launches)
      throw std::invalid_argument(fmt::format("time-sharing plan: a phase of unknown launch {}", p.launch));
    if (p.gpu > 0)
      throw std::invalid_argument(fmt::format(
          "time-sharing plan: launch {} has a phase on GPU {}; the executor drives one GPU", p.launch, p.gpu));
    TimeshareStep s;
    s.launch = p.launch;
    s.planned_start = p.start;
    s.planned_end = p.end;
    switch (p.state) {
      case PhaseState::RestoreState:
        s.kind = TimeshareStepKind::Restore;
        break;
      case PhaseState::SaveState:
        s.kind = TimeshareStepKind::Save;
        break;
      case PhaseState::Running:
        s.kind = TimeshareStepKind::MicroKernel;
        s.first_block = -1;
        running[static_cast<std::size_t>(p.launch)].push_back(steps.size());
        break;
      case PhaseState::Wait:
      case PhaseState::ReadyToLaunch:
        continue;  // states, not work
    }
    steps.push_back(s);
  }
  for (auto& r : running)
    std::sort(r.begin(), r.end(),
              [&](std::size_t a, std::size_t b) { return steps[a].planned_start < steps[b].planned_start; });
  // Blocks of each micro-kernel: the pieces that started inside its Running phase.
  std::vector<std::vector<std::int64_t>> blocks(steps.size());
  for (const auto& p : plan.pieces) {
    if (p.gpu != 0)
      throw std::invalid_argument(fmt::format(
          "time-sharing plan: launch {} has a block on GPU {}; the executor drives one GPU", p.launch, p.gpu));
    if (p.launch < 0 || static_cast<std::size_t>(p.launch) >= launches)
      throw std::invalid_argument(fmt::format("time-sharing plan: a block of unknown launch {}", p.launch));
    const auto& r = running[static_cast<std::size_t>(p.launch)];
    auto it = std::upper_bound(r.begin(), r.end(), p.start,
                               [&](TimeNs t, std::size_t s) { return t < steps[s].planned_start; });
    if (it == r.begin() || p.start > steps[*std::prev(it)].planned_end)
      throw std::invalid_argument(
          fmt::format("time-sharing plan: block {} of launch {} starts at {} ns, in none of its Running phases",
                      p.block, p.launch, p.start));
    blocks[*std::prev(it)].push_back(p.block);
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != TimeshareStepKind::MicroKernel) continue;
    auto& b = blocks[i];
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    if (b.empty()) {  // a Running phase whose blocks all started elsewhere: nothing to launch
      steps[i].blocks = 0;
      continue;
    }
    if (b.back() - b.front() + 1 != static_cast<std::int64_t>(b.size()))
      throw std::invalid_argument(
          fmt::format("time-sharing plan: the micro-kernel of launch {} at {} ns runs blocks {}..{} with gaps; a "
                      "micro-kernel is one "
                      "range of blocks",
                      steps[i].launch, steps[i].planned_start, b.front(), b.back()));
    steps[i].first_block = b.front();
    steps[i].blocks = static_cast<std::int64_t>(b.size());
  }
  std::erase_if(steps,
                [](const TimeshareStep& s) { return s.kind == TimeshareStepKind::MicroKernel && s.blocks == 0; });
  // At one instant a save frees memory before a restore fills it, and a restore precedes the micro-kernel it feeds.
  auto rank = [](TimeshareStepKind k) {
    return k == TimeshareStepKind::Save ? 0 : k == TimeshareStepKind::Restore ? 1 : 2;
  };
  std::stable_sort(steps.begin(), steps.end(), [&](const TimeshareStep& a, const TimeshareStep& b) {
    return std::tuple(a.planned_start, rank(a.kind), a.launch) < std::tuple(b.planned_start, rank(b.kind), b.launch);
  });
  return steps;
}

std::vector<PhaseSpan> measured_phases(const std::vector<TimeshareStep>& steps,
                                       const std::vector<std::pair<TimeNs, TimeNs>>& measured,
                                       const std::vector<TimeNs>& release) {
  if (measured.size() != steps.size()) throw std::invalid_argument("measured_phases: one time per step expected");
  std::vector<PhaseSpan> out;
  auto add = [&](TimeNs start, TimeNs end, std::int32_t launch, std::int16_t gpu, PhaseState state) {
    if (end > start) out.push_back({start, end, launch, gpu, state});
  };
  // Per launch: where its last step left it. Waiting from `idle_since` (its release, or a save's end); after a
  // restore, ready from `ready_since`.
  struct Cursor {
    TimeNs idle_since = -1, ready_since = -1, kernel_end = -1;
  };
  std::vector<Cursor> at(release.size());
  for (std::size_t l = 0; l < release.size(); ++l) at[l].idle_since = release[l];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    const auto [start, end] = measured[i];
    auto& c = at.at(static_cast<std::size_t>(s.launch));
    if (c.idle_since >= 0) add(c.idle_since, start, s.launch, -1, PhaseState::Wait);
    c.idle_since = -1;
    switch (s.kind) {
      case TimeshareStepKind::Restore:
        add(start, end, s.launch, 0, PhaseState::RestoreState);
        c.ready_since = end;
        break;
      case TimeshareStepKind::MicroKernel:
        if (c.ready_since >= 0) add(c.ready_since, start, s.launch, 0, PhaseState::ReadyToLaunch);
        c.ready_since = -1;
        add(start, end, s.launch, 0, PhaseState::Running);
        c.kernel_end = end;
        break;
      case TimeshareStepKind::Save:
        // As the policy has it, saving from the end of the micro-kernel before it (the copy may queue on the link).
        add(c.kernel_end >= 0 ? std::min(c.kernel_end, start) : start, end, s.launch, 0, PhaseState::SaveState);
        c.idle_since = end;
        break;
    }
  }
  // A launch whose last step was a save is done once it is saved: no Wait after it.
  std::sort(out.begin(), out.end(), [](const PhaseSpan& a, const PhaseSpan& b) {
    return std::tie(a.end, a.launch, a.start) < std::tie(b.end, b.launch, b.start);
  });
  return out;
}

}  // namespace gpusched::live
