// No input may crash the sweep file reader (paths are not resolved here: expansion is separate).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "sim/sweep/sweep_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpusched::Warnings warnings;
  try {
    (void)gpusched::sim::parse_sweep(text, "fuzz.toml", ".", &warnings);
  } catch (const gpusched::InputError&) {
  }
  return 0;
}
