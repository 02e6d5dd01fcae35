// The policy interface: after each batch of simultaneous events the engine calls on_events with a
// read-only view and an Actions object. Policies keep their own state; they never touch the engine's.
#pragma once
#include <span>
#include <string>

#include "sim/engine.h"

namespace gpusched::sim {

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  virtual void on_events(const EngineView& view, std::span<const EngineEvent> events, Actions& actions) = 0;
};

}  // namespace gpusched::sim
