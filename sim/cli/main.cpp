// gpusched: headless batch simulation. Exit codes: 0 success, 1 internal error (a policy bug, an I/O
// failure), 2 bad input (a file, a parameter or the command line).
#include <fmt/format.h>

#include <cstdio>

#include "sim/cli/commands.h"
#include "sim/engine.h"

int main(int argc, char** argv) {
  CLI::App app{"gpusched: trace-driven simulation of GPU thread-block scheduling policies"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  gpusched::cli::add_info_command(app);
  gpusched::cli::add_gpus_command(app);
  gpusched::cli::add_validate_command(app);
  gpusched::cli::add_gen_command(app);
  gpusched::cli::add_sim_command(app);
  gpusched::cli::add_replay_command(app);
  gpusched::cli::add_crossval_command(app);
  gpusched::cli::add_policies_command(app);
  gpusched::cli::add_predict_command(app);
  gpusched::cli::add_reorder_command(app);
  gpusched::cli::add_as_priorities_command(app);
  gpusched::cli::add_replay_parts_command(app);
  gpusched::cli::add_sweep_command(app);
  gpusched::cli::add_kernelet_command(app);
  gpusched::cli::add_chimera_commands(app);
  gpusched::cli::add_sharegpu_command(app);
  gpusched::cli::add_store_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const gpusched::cli::ExitCode& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : gpusched::kExitInputError;
  } catch (const gpusched::InputError& e) {
    std::fprintf(stderr, "gpusched: error: %s\n", e.what());
    return gpusched::kExitInputError;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gpusched: error: %s\n", e.what());
    return gpusched::kExitInputError;
  } catch (const gpusched::sim::ActionError& e) {
    std::fprintf(stderr, "gpusched: internal error (refused action): %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusched: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
