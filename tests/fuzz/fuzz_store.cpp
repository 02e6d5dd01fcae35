// No file may crash the result store's reader: the bytes are written to a file, opened read-only, and every
// run is listed and loaded. Refusals (StoreFormatError) and SQLite errors on a damaged file are expected.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/store/sqlite.h"
#include "core/store/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/gpusched_fuzz_store_" + std::to_string(getpid()) + ".db";
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    const auto store = gpusched::store::Store::open(path, gpusched::store::Store::Mode::ReadOnly);
    for (const auto& run : store.list_runs()) (void)store.load_run(run.info.id);
    (void)store.validations();
  } catch (const gpusched::InputError&) {
  } catch (const gpusched::store::SqliteError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
