#include "sim/part_contexts.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpusched::sim {

const char* part_context_name(PartContext how) {
  return how == PartContext::Claimed ? "claimed" : "cover";
}

PartContext part_context_of(std::string_view name) {
  if (name == "cover") return PartContext::Cover;
  if (name == "claimed") return PartContext::Claimed;
  throw std::invalid_argument("unknown part context '" + std::string(name) + "' (cover or claimed)");
}

std::vector<PartSpan> part_spans(const RunResult& plan, const std::vector<std::vector<PlannedPart>>& cut) {
  // Per launch and block: the end of its piece (a plan of whole blocks has one piece a block).
  std::vector<std::vector<TimeNs>> end_of_block(cut.size());
  for (const auto& piece : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(piece.launch);
    if (i >= cut.size() || piece.block < 0) continue;
    auto& ends = end_of_block[i];
    const auto b = static_cast<std::size_t>(piece.block);
    if (ends.size() <= b) ends.resize(b + 1, 0);
    ends[b] = std::max(ends[b], piece.end);
  }
  std::vector<PartSpan> out;
  for (std::size_t i = 0; i < cut.size(); ++i)
    for (const auto& part : cut[i]) {
      PartSpan span{static_cast<std::int32_t>(i), part.sms, part.start, part.start};
      for (std::int32_t b = part.first; b < part.first + part.blocks; ++b)
        if (b >= 0 && static_cast<std::size_t>(b) < end_of_block[i].size())
          span.end = std::max(span.end, end_of_block[i][static_cast<std::size_t>(b)]);
      out.push_back(std::move(span));
    }
  return out;
}

std::vector<PartSpan> part_spans(const RunResult& plan, const std::vector<std::vector<PlannedPieces>>& cut) {
  std::vector<PartSpan> out;
  for (std::size_t i = 0; i < cut.size(); ++i)
    for (const auto& part : cut[i]) {
      PartSpan span{static_cast<std::int32_t>(i), part.sms, part.start, part.start};
      for (const std::size_t k : part.pieces) span.end = std::max(span.end, plan.schedule.pieces.at(k).end);
      out.push_back(std::move(span));
    }
  return out;
}

std::vector<std::vector<int>> part_context_groups(const std::vector<std::vector<int>>& group_sms,
                                                  const std::vector<PartSpan>& spans, PartContext how) {
  if (how == PartContext::Claimed) return claimed_groups_of_parts(group_sms, spans);
  std::vector<std::vector<int>> out;
  out.reserve(spans.size());
  for (const auto& s : spans) out.push_back(covering_groups_of_sms(group_sms, s.sms));
  return out;
}

std::vector<std::vector<int>> part_context_sms(const std::vector<std::vector<int>>& group_sms,
                                               const std::vector<PartSpan>& spans, PartContext how) {
  auto groups = part_context_groups(group_sms, spans, how);
  std::vector<std::vector<int>> out;
  out.reserve(groups.size());
  for (const auto& g : groups) out.push_back(sms_of_groups(group_sms, g));  // none: every SM
  return out;
}

}  // namespace gpusched::sim
