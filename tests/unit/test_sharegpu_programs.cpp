// Seed 004's Table I programs (core/sharegpu_programs): what each saves when it yields, by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/sharegpu_programs.h"
#include "test_helpers.h"

using namespace gpusched;

namespace {

std::int64_t dirty_bytes(const std::string& name, SharegpuDirty rule) {
  const auto* p = find_sharegpu_program(name);
  EXPECT_NE(p, nullptr) << name;
  return sharegpu_kernel(*p, "k40", 0, rule).profile.dirty_bytes;
}

}  // namespace

TEST(SharegpuPrograms, DirtyBytesAreTheWrittenVariables) {
  // matTrans writes its output matrix, half of 5433 MiB: 5433 * 1048576 / 2 = 2 848 456 704 B.
  EXPECT_EQ(dirty_bytes("mattrans", SharegpuDirty::Data), 2848456704);
  // StringSort rewrites everything but its 1 GiB list: 2/3 of 3072 MiB = 2 GiB exactly.
  EXPECT_EQ(dirty_bytes("stringsort", SharegpuDirty::Data), 2147483648);
  // dxtc writes the compressed image, 11 % of 2280 MiB: 2 390 753 280 * 0.11 = 262 982 860.8, rounded.
  EXPECT_EQ(dirty_bytes("dxtc", SharegpuDirty::Data), 262982861);
  // Gaussian eliminates in place: all of it.
  EXPECT_EQ(dirty_bytes("gaussian", SharegpuDirty::Data), 883LL << 20);
  // The rule before session 21: half of every footprint (3072 MiB / 2 = 1 610 612 736 B).
  EXPECT_EQ(dirty_bytes("stringsort", SharegpuDirty::Half), 1610612736);
}

TEST(SharegpuPrograms, DirtyRuleNames) {
  EXPECT_EQ(parse_sharegpu_dirty("data"), SharegpuDirty::Data);
  EXPECT_EQ(parse_sharegpu_dirty("half"), SharegpuDirty::Half);
  EXPECT_THROW(parse_sharegpu_dirty("all"), std::invalid_argument);
}

TEST(SharegpuPrograms, CliRejectsAnUnknownDirtyRule) {
  std::string out;
  EXPECT_NE(test::run_cli("sharegpu --dirty all", out), 0);
  EXPECT_NE(out.find("--dirty"), std::string::npos) << out;
}
