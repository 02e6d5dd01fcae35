#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/duration_model.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::cli {
namespace {

template <class T>
void list(const char* title) {
  fmt::print("{}\n", title);
  for (const auto* info : sim::Registry<T>::instance().all()) {
    fmt::print("  {:<16} {}\n", info->name, info->description);
    for (const auto& p : info->params)
      fmt::print("  {:<16}   {} ({}, default {}): {}\n", "", p.name, sim::to_string(p.type), p.default_value, p.meaning);
  }
}

}  // namespace

void add_policies_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("policies", "List the registered policies and interference models with their parameters");
  cmd->callback([] {
    list<sim::Policy>("Policies (--policy NAME, parameters with --set NAME.PARAM=VALUE):");
    fmt::print("\n");
    list<sim::DurationModel>("Interference models (--interference NAME):");
  });
}

}  // namespace gpusched::cli
