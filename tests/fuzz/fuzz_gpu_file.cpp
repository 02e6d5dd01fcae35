// No input may crash the GPU file reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/gpu_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpusched::Warnings warnings;
  try {
    (void)gpusched::parse_gpu_file(text, "fuzz.toml", &warnings);
  } catch (const gpusched::InputError&) {
  }
  return 0;
}
