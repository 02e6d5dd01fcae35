// No input may crash the co-run records reader: it returns records or throws InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/corun_records.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpusched::parse_corun_records(text, "fuzz.csv");
  } catch (const gpusched::InputError&) {
  }
  return 0;
}
