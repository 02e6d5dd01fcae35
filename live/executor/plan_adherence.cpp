#include "live/executor/plan_adherence.h"

namespace gpusched::live {

HandOffSplit split_hand_offs(const PlanAdherence& x, const std::vector<std::int32_t>& worker_of_plan_piece) {
  HandOffSplit out;
  std::vector<EntryWorker> who;
  for (const std::int32_t word : worker_of_plan_piece) who.push_back(decode_entry_worker(word));
  const auto known = [&](std::size_t p) { return p < who.size() && who[p].worker >= 0; };
  for (const auto& a : x.pieces) {
    if (a.moved || a.hand_off < 0) continue;
    const auto q = static_cast<std::size_t>(a.hand_off);
    if (!known(a.plan_piece) || !known(q)) continue;
    const EntryWorker &mine = who[a.plan_piece], &theirs = who[q];
    const double us = static_cast<double>(a.hand_off_delay) / 1e3;
    // A wide piece (lane 2) follows a lane's piece on the same worker, and the other way round: the same worker.
    const bool same = mine.worker == theirs.worker && (mine.lane == theirs.lane || mine.lane == 2 || theirs.lane == 2);
    if (same)
      (mine.waited ? out.same_waited_us : out.same_ready_us).push_back(us);
    else
      (mine.first ? out.other_fresh_us : out.other_us).push_back(us);
  }
  return out;
}

}  // namespace gpusched::live
