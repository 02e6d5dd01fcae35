#include "core/lud_sequence.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpusched {

std::shared_ptr<const KernelProfile> with_block_count(const KernelProfile& k, int blocks) {
  if (blocks < 1) throw std::invalid_argument(fmt::format("with_block_count: {} blocks of {}", blocks, k.name));
  auto p = std::make_shared<KernelProfile>(k);
  p->name = fmt::format("{}@{}", k.name, blocks);
  p->grid = {blocks, 1, 1};
  for (auto& set : p->record_sets) {
    // Block b keeps its own record; a block past the recorded ones draws from the kept records, as any
    // unrecorded block does.
    if (static_cast<int>(set.duration_by_block.size()) > blocks)
      set.duration_by_block.resize(static_cast<std::size_t>(blocks));
    if (static_cast<int>(set.alternate_by_block.size()) > blocks)
      set.alternate_by_block.resize(static_cast<std::size_t>(blocks));
    finalize_record_set(set);
    if (set.recorded == 0)
      throw std::invalid_argument(
          fmt::format("with_block_count: {}'s first {} blocks have no records", k.name, blocks));
  }
  return p;
}

LudSequence lud_sequence(const KernelProfile& diagonal, const KernelProfile& perimeter, const KernelProfile& internal,
                         int matrix_dim, int tile, const std::string& tenant, const std::string& stream) {
  if (tile < 1 || matrix_dim % tile != 0 || matrix_dim / tile < 2)
    throw std::invalid_argument(
        fmt::format("lud_sequence: a {} x {} matrix in {} x {} tiles", matrix_dim, matrix_dim, tile, tile));
  LudSequence s;
  auto add = [&](const KernelProfile& k, int blocks, const std::string& what, int it) {
    Launch l;
    l.id = fmt::format("{}-{}-{}", tenant, what, it);
    l.kernel = s.kernels.size();
    l.tenant = tenant;
    l.stream = stream;
    s.kernels.push_back(with_block_count(k, blocks));
    s.launches.push_back(std::move(l));
  };
  const int tiles = matrix_dim / tile;
  for (int it = 0; it + 1 < tiles; ++it) {
    const int m = tiles - 1 - it;
    add(diagonal, 1, "diagonal", it);
    add(perimeter, m, "perimeter", it);
    add(internal, m * m, "internal", it);
  }
  add(diagonal, 1, "diagonal", tiles - 1);
  return s;
}

}  // namespace gpusched
