// No input may crash the block-record reader: it returns records or throws InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/block_records_csv.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpusched::BlockRecordLimits lim;
  lim.block_count = 1000;
  lim.sm_count = 16;
  lim.cycles_clock_mhz = size % 2 ? 700.0 : 0.0;
  try {
    (void)gpusched::parse_block_records(text, "fuzz.csv", lim);
  } catch (const gpusched::InputError&) {
  }
  return 0;
}
