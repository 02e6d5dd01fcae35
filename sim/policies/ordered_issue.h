// In-order issue with head-of-line blocking, the hardware's left-over policy: launches issue in a given
// order, and a later launch issues blocks only once every earlier one has issued all of its blocks.
// fifo orders by release, sjf by time alone, serial admits only the first launch.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/policies/issue.h"
#include "sim/policy.h"

namespace gpusched::sim {

class OrderedIssue {
 public:
  explicit OrderedIssue(const Params& params) : params_(params) {}
  // Issues blocks in `order`; `only_first` admits only order[0] (serial execution).
  void run(const EngineView& v, std::span<const EngineEvent> events, Actions& a, std::span<const std::int32_t> order,
           bool only_first = false);

 private:
  Params params_;
  bool initialised_ = false;
  PlacementState placement_;
  std::vector<std::int32_t> all_;
  std::int32_t last_head_ = -1;
  std::size_t skip_ = 0;  // leading launches of the order known to have nothing left to issue
};

// A policy that issues in a stable order of the active launches (release order among equals), re-sorted whenever a
// launch is released or finishes: sjf (time alone) and priority (stream priority).
class SortedIssuePolicy final : public Policy {
 public:
  using Before = std::function<bool(const EngineView&, std::int32_t, std::int32_t)>;
  SortedIssuePolicy(const Params& p, std::string name, Before before)
      : issue_(p), name_(std::move(name)), before_(std::move(before)) {}
  std::string name() const override { return name_; }
  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override;

 private:
  OrderedIssue issue_;
  std::string name_;
  Before before_;
  std::vector<std::int32_t> order_;
};

}  // namespace gpusched::sim
