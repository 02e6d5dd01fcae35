// No input may crash the kernel-profile reader. Record files resolve against tests/data/small, so inputs
// that name the shipped CSVs exercise the record checks too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/profile_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpusched::Warnings warnings;
  try {
    (void)gpusched::parse_kernel_profile(text, "fuzz.kernel.toml", GPUSCHED_TEST_DATA "/small", &warnings);
  } catch (const gpusched::InputError&) {
  }
  return 0;
}
