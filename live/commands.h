// gpusched-live's commands that live in their own files.
#pragma once
#include <CLI/CLI.hpp>

namespace gpusched::live {

void add_validate_command(CLI::App& app, int& result);
void add_preempt_command(CLI::App& app, int& result);
void add_overhead_command(CLI::App& app, int& result);
void add_calibrate_command(CLI::App& app, int& result);
void add_native_command(CLI::App& app, int& result);
void add_record_pairs_command(CLI::App& app, int& result);

}  // namespace gpusched::live
