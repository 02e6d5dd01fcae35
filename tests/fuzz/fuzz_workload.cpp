// No input may crash the workload reader (kernels resolve against tests/data/small; attributes only).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/workload_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpusched::Warnings warnings;
  try {
    (void)gpusched::parse_workload(text, "fuzz.toml", GPUSCHED_TEST_DATA "/small", &warnings, /*load_records=*/false);
  } catch (const gpusched::InputError&) {
  }
  return 0;
}
