#include <gtest/gtest.h>

#include "core/error.h"
#include "core/gpu_file.h"
#include "core/gpu_spec.h"

using namespace gpusched;

TEST(GpuSpec, PresetsFromThePapers) {
  const auto* g = find_gpu_preset("GTX480");  // case-insensitive
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->sm_count, 15);
  EXPECT_EQ(g->max_threads_per_sm, 1536);
  EXPECT_EQ(g->registers_per_sm, 32768);
  EXPECT_EQ(g->shared_memory_per_sm, 48 * 1024);
  EXPECT_EQ(g->max_blocks_per_sm, 8);
  EXPECT_EQ(g->max_warps_per_sm, 48);
  EXPECT_EQ(find_gpu_preset("c2050")->sm_count, 14);
  EXPECT_EQ(find_gpu_preset("gtx680")->sm_count, 8);
  EXPECT_EQ(find_gpu_preset("k40")->sm_count, 15);
  EXPECT_EQ(find_gpu_preset("titanx")->sm_count, 24);
  EXPECT_EQ(find_gpu_preset("chimera-fermi")->sm_count, 30);
  EXPECT_DOUBLE_EQ(find_gpu_preset("chimera-fermi")->clock_mhz, 1400.0);
  for (const char* h : {"h100", "h200"}) {
    const auto* x = find_gpu_preset(h);
    EXPECT_EQ(x->sm_count, 132);
    EXPECT_EQ(x->max_threads_per_sm, 2048);
    EXPECT_EQ(x->max_warps_per_sm, 64);
    EXPECT_EQ(x->registers_per_sm, 65536);
    EXPECT_EQ(x->shared_memory_per_sm, 228 * 1024);
    EXPECT_EQ(x->max_blocks_per_sm, 32);
  }
  EXPECT_EQ(find_gpu_preset("nope"), nullptr);
}

TEST(GpuSpec, ResidentGridsPerComputeCapability) {
  // CUDA C Programming Guide, "Maximum number of resident grids per device": 16 at compute 2.x and 3.0, 32 at 3.5
  // and 5.2, 128 at 9.0.
  for (const char* fermi : {"gtx480", "c2050", "chimera-fermi"})
    EXPECT_EQ(find_gpu_preset(fermi)->max_resident_grids, 16);
  EXPECT_EQ(find_gpu_preset("gtx680")->max_resident_grids, 16);
  EXPECT_EQ(find_gpu_preset("k40")->max_resident_grids, 32);
  EXPECT_EQ(find_gpu_preset("titanx")->max_resident_grids, 32);
  EXPECT_EQ(find_gpu_preset("h100")->max_resident_grids, 128);
  EXPECT_EQ(find_gpu_preset("h200")->max_resident_grids, 128);
  Warnings w;
  const auto g = parse_gpu_file(
      "format = \"gpusched-gpu\"\nversion = 1\nname = \"x\"\nbase = \"h100\"\nmax_resident_grids = 0\n", "g.toml", &w);
  EXPECT_EQ(g.max_resident_grids, 0);  // no limit
}

TEST(GpuFile, RoundTripsEveryPreset) {
  for (const auto& g : gpu_presets()) {
    Warnings w;
    const GpuSpec back = parse_gpu_file(gpu_file_text(g), "x.toml", &w);
    EXPECT_TRUE(w.empty());
    EXPECT_EQ(back.sm_count, g.sm_count);
    EXPECT_EQ(back.registers_per_sm, g.registers_per_sm);
    EXPECT_EQ(back.shared_memory_allocation_unit, g.shared_memory_allocation_unit);
    EXPECT_EQ(back.placement, g.placement);
    EXPECT_DOUBLE_EQ(back.dram_bandwidth_gbps, g.dram_bandwidth_gbps);
  }
}

TEST(GpuFile, BaseAndOverride) {
  Warnings w;
  const auto g = parse_gpu_file("format = \"gpusched-gpu\"\nversion = 1\nname = \"mini\"\nbase = \"h100\"\nsm_count = 4\n",
                                "mini.toml", &w);
  EXPECT_EQ(g.sm_count, 4);
  EXPECT_EQ(g.max_blocks_per_sm, 32);
}

TEST(GpuFile, NonAsciiOutsideCommentsIsRefused) {
  // Found by fuzz_gpu_file: toml++ 3.3 hit __builtin_unreachable() on such input.
  Warnings w;
  try {
    parse_gpu_file("# caf\xc3\xa9 is fine in a comment\nformat = 1\xc9\x8e\n", "g.toml", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.toml:2:11: a non-ASCII character: gpusched files are ASCII outside full-line comments");
  }
}

TEST(GpuFile, BadValues) {
  Warnings w;
  try {
    parse_gpu_file("format = \"gpusched-gpu\"\nversion = 1\nname = \"x\"\nbase = \"h100\"\nsm_count = 0\n", "g.toml", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.toml:5:12: field 'sm_count': expected an integer in [1, 4096], found 0");
  }
  try {
    parse_gpu_file("format = \"gpusched-gpu\"\nversion = 1\nname = \"x\"\nbase = \"h100\"\nmax_resident_grids = -1\n",
                   "g.toml", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.toml:5:22: field 'max_resident_grids': expected an integer in [0, 1048576], found -1");
  }
  try {
    parse_gpu_file("format = \"gpusched-gpu\"\nversion = 2\nname = \"x\"\n", "g.toml", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.toml:2:11: field 'version': expected a version from 1 to 1, found 2");
  }
  try {
    parse_gpu_file("format = \"gpusched-kernel\"\nversion = 1\n", "g.toml", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.toml:1:10: field 'format': expected \"gpusched-gpu\", found \"gpusched-kernel\"");
  }
}
