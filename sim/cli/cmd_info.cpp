#include <fmt/format.h>

#include "sim/cli/build_info.h"
#include "sim/cli/commands.h"
#include "sim/duration_model.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::cli {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print the version and what was built");
  cmd->callback([] {
    fmt::print("gpusched {}\n", GPUSCHED_VERSION);
    fmt::print("commit:        {}\n", GPUSCHED_GIT_COMMIT);
    fmt::print("build type:    {}\n", GPUSCHED_BUILD_TYPE);
    fmt::print("compiler:      {}\n", GPUSCHED_COMPILER);
    fmt::print("parts built:   {}\n", GPUSCHED_PARTS);
    fmt::print("policies:      {}\n", sim::Registry<sim::Policy>::instance().names());
    fmt::print("interference:  {}\n", sim::Registry<sim::DurationModel>::instance().names());
  });
}

}  // namespace gpusched::cli
