#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/generator.h"
#include "core/profile_io.h"

using namespace gpusched;

namespace {

// A synthesized 64-block profile on the h100 preset.
GeneratedProfile small_h100_profile(const std::string& name) {
  SyntheticProfileSpec s;
  s.name = name;
  s.gpu = "h100";
  s.blocks = 64;
  s.mean_block_ns = 1000;
  return synthesize_profile(s);
}

// `g` written to a temporary folder and read back (no warnings expected); the folder is removed.
KernelProfile written_and_read(const GeneratedProfile& g) {
  const auto dir = (std::filesystem::temp_directory_path() / ("gpusched_profile_" + g.profile.name)).string();
  write_kernel_profile(dir, g.profile, g.records);
  Warnings w;
  auto k = read_kernel_profile(dir + "/" + g.profile.name + ".kernel.toml", &w);
  EXPECT_TRUE(w.empty()) << w.front();
  std::filesystem::remove_all(dir);
  return k;
}

// The fields a profile must have, for parse_kernel_profile cases that add one table.
const std::string kMinimalProfile =
    "format = \"gpusched-kernel\"\nversion = 1\nname = \"k\"\ngrid = [2]\nblock = [32]\nregisters_per_thread = 8\n";

}  // namespace

TEST(ProfileReader, ReadsShippedErcbenchProfile) {
  Warnings w;
  const auto k = read_kernel_profile(std::string(GPUSCHED_TRACES_DIR) + "/ercbench/aes-d.kernel.toml", &w);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(k.name, "aes-d");
  EXPECT_EQ(k.block_count(), 1429);
  EXPECT_EQ(k.threads_per_block(), 256);
  ASSERT_EQ(k.record_sets.size(), 1u);
  EXPECT_EQ(k.record_sets[0].residency, 6);
  EXPECT_EQ(k.record_sets[0].recorded, 1429);
  // Seed 001 Table 3: mean 14529 cycles at 700 MHz = 20756 ns, RSD 12.52%: the drawn sample is close.
  EXPECT_NEAR(k.record_sets[0].mean_ns, 14529.0 / 0.7, 0.02 * 14529.0 / 0.7);
  EXPECT_NEAR(k.record_sets[0].stddev_ns / k.record_sets[0].mean_ns, 0.1252, 0.02);
}

TEST(ProfileReader, WriteThenReadRoundTrip) {
  SyntheticProfileSpec s;
  s.name = "rt";
  s.gpu = "h100";
  s.blocks = 500;
  s.threads_per_block = 128;
  s.registers_per_thread = 40;
  s.shared_memory_per_block = 1000;
  s.mean_block_ns = 5000;
  s.rsd = 0.3;
  s.idempotent_until = 0.8;
  s.context_bytes_per_block = 12345;
  const auto g = synthesize_profile(s);
  const auto dir = (std::filesystem::temp_directory_path() / "gpusched_profile_rt").string();
  write_kernel_profile(dir, g.profile, g.records);
  Warnings w;
  const auto k = read_kernel_profile(dir + "/rt.kernel.toml", &w);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(k.registers_per_thread, 40);
  EXPECT_EQ(k.context_bytes_per_block, 12345);
  EXPECT_DOUBLE_EQ(k.idempotent_until, 0.8);
  EXPECT_EQ(k.record_sets[0].duration_by_block, g.profile.record_sets[0].duration_by_block);
  std::filesystem::remove_all(dir);
}

TEST(ProfileReader, UnknownFieldWarns) {
  Warnings w;
  const auto k = parse_kernel_profile(
      "format = \"gpusched-kernel\"\nversion = 1\nname = \"k\"\ngrid = [2]\nblock = [32]\nregisters_per_thread = 8\n"
      "colour = \"red\"\n",
      "k.toml", "", &w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "k.toml:7:10: warning: unknown field 'colour' (ignored)");
}

TEST(ProfileReader, CyclesNeedAClock) {
  Warnings w;
  try {
    parse_kernel_profile(
        "format = \"gpusched-kernel\"\nversion = 1\nname = \"k\"\ngrid = [2]\nblock = [32]\n"
        "registers_per_thread = 8\ntime_unit = \"cycles\"\n",
        "k.toml", "", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "k.toml:1:1: field 'clock_mhz': missing (this field is required)");
  }
}

TEST(ProfileReader, ResidencyAboveOccupancyIsRefused) {
  Warnings w;
  try {
    parse_kernel_profile(
        "format = \"gpusched-kernel\"\nversion = 1\nname = \"k\"\ngpu = \"gtx480\"\ngrid = [2]\n"
        "block = [256]\nregisters_per_thread = 8\n[[records]]\nresidency = 7\nfile = \"x.csv\"\n",
        "k.toml", "", &w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "k.toml:9:13: field 'records[0].residency': expected at most 6 (the occupancy limit on "
                 "gtx480), found 7");
  }
}

TEST(ProfileReader, ProvenanceRoundTripAndBadValue) {
  auto g = small_h100_profile("prov");
  g.profile.provenance["device"] = "NVIDIA H100 80GB HBM3";
  g.profile.provenance["command"] = "gpusched-live record --kernel \"x\"";  // quotes are escaped
  g.profile.provenance["globaltimer_resolution_ns"] = "32";
  EXPECT_EQ(written_and_read(g).provenance, g.profile.provenance);
  // Integers are accepted as text; anything else names the field.
  Warnings w;
  const std::string& head = kMinimalProfile;
  const auto ok = parse_kernel_profile(head + "[provenance]\nresolution = 32\n", "k.toml", "", &w);
  EXPECT_EQ(ok.provenance.at("resolution"), "32");
  try {
    parse_kernel_profile(head + "[provenance]\ndate = 2026-11-21\n", "k.toml", "", &w);
    ADD_FAILURE() << "a date value was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("provenance.date"), std::string::npos) << e.what();
  }
}

TEST(ProfileWriter, AFailedWriteLeavesNoFile) {
  // Two record sets but records for only one: the writer fails before renaming anything, so neither the
  // first CSV nor the attribute file appears.
  SyntheticProfileSpec spec;
  spec.name = "k";
  spec.gpu = "h100";
  spec.blocks = 64;
  spec.threads_per_block = 128;
  auto g = synthesize_profile(spec);
  RecordSet second = g.profile.record_sets.front();
  second.residency = 1;
  g.profile.record_sets.insert(g.profile.record_sets.begin(), second);
  const auto dir = std::filesystem::temp_directory_path() / "gpusched_profile_writer_fail";
  std::filesystem::remove_all(dir);
  EXPECT_ANY_THROW(write_kernel_profile(dir.string(), g.profile, g.records));
  ASSERT_TRUE(std::filesystem::exists(dir));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// The profiler's counts (scripts/ncu-to-profiles.py): read, written back, and refused out of range with the field
// named.
TEST(ProfileReader, CountedTrafficAndUncoalescedFraction) {
  const std::string head =
      "format = \"gpusched-kernel\"\nversion = 1\nname = \"k\"\ngrid = [2]\nblock = [32]\nregisters_per_thread = 8\n";
  Warnings w;
  auto k =
      parse_kernel_profile(head + "dram_bytes_per_block = 710215.8\nuncoalesced_fraction = 0.386\n", "k.toml", "", &w);
  EXPECT_TRUE(w.empty());
  ASSERT_TRUE(k.dram_bytes_per_block && k.uncoalesced_fraction);
  EXPECT_DOUBLE_EQ(*k.dram_bytes_per_block, 710215.8);
  EXPECT_DOUBLE_EQ(*k.uncoalesced_fraction, 0.386);

  SyntheticProfileSpec s;
  s.name = "counted";
  s.gpu = "h100";
  s.blocks = 4;
  s.threads_per_block = 128;
  s.mean_block_ns = 5000;
  const auto g = synthesize_profile(s);
  auto p = g.profile;
  p.dram_bytes_per_block = 2049.2;
  p.uncoalesced_fraction = 0.25;
  p.gpu_wide_share = 0.75;
  p.gpu_wide_blocks["gather-s1"] = 2.36;
  const auto dir = (std::filesystem::temp_directory_path() / "gpusched_profile_counted").string();
  write_kernel_profile(dir, p, g.records);
  const auto back = read_kernel_profile(dir + "/counted.kernel.toml", &w);
  EXPECT_DOUBLE_EQ(back.dram_bytes_per_block.value_or(0), 2049.2);
  EXPECT_DOUBLE_EQ(back.uncoalesced_fraction.value_or(0), 0.25);
  EXPECT_DOUBLE_EQ(back.gpu_wide_share.value_or(0), 0.75);
  ASSERT_EQ(back.gpu_wide_blocks.size(), 1u);
  EXPECT_DOUBLE_EQ(back.gpu_wide_blocks.at("gather-s1"), 2.36);
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(k.gpu_wide_share);  // absent: the model reads 0

  const auto refused = [&](const std::string& line) {
    try {
      parse_kernel_profile(head + line + "\n", "k.toml", "", &w);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused("uncoalesced_fraction = 1.5"),
            "k.toml:7:24: field 'uncoalesced_fraction': expected a fraction in [0, 1], found 1.5");
  EXPECT_EQ(refused("dram_bytes_per_block = -1"),
            "k.toml:7:24: field 'dram_bytes_per_block': expected a non-negative number, found -1");
  EXPECT_EQ(refused("[gpu_wide_blocks]\n\"gather-s1\" = 65"),
            "k.toml:8:15: field 'gpu_wide_blocks.gather-s1': expected a weight in [0, 64], found 65");
  EXPECT_EQ(refused("gpu_wide_share = 1.25"),
            "k.toml:7:18: field 'gpu_wide_share': expected a fraction in [0, 1], found 1.25");
}

TEST(ProfileReader, StoppableRoundTripAndBadValue) {
  const std::string head =
      "format = \"gpusched-kernel\"\nversion = 1\nname = \"k\"\ngrid = [2]\nblock = [32]\nregisters_per_thread = 8\n";
  Warnings w;
  EXPECT_TRUE(parse_kernel_profile(head, "k.toml", "", &w).stoppable);  // absent: true
  EXPECT_FALSE(parse_kernel_profile(head + "stoppable = false\n", "k.toml", "", &w).stoppable);
  EXPECT_TRUE(w.empty());
  std::string error = "accepted";
  try {
    parse_kernel_profile(head + "stoppable = 3\n", "k.toml", "", &w);
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("k.toml:7"), std::string::npos) << error;
  EXPECT_NE(error.find("stoppable"), std::string::npos) << error;

  SyntheticProfileSpec s;
  s.name = "unstoppable";
  s.gpu = "h100";
  s.blocks = 4;
  s.threads_per_block = 128;
  s.mean_block_ns = 5000;
  const auto g = synthesize_profile(s);
  auto p = g.profile;
  p.stoppable = false;
  const auto dir = (std::filesystem::temp_directory_path() / "gpusched_profile_unstoppable").string();
  write_kernel_profile(dir, p, g.records);
  EXPECT_FALSE(read_kernel_profile(dir + "/unstoppable.kernel.toml", &w).stoppable);
  std::filesystem::remove_all(dir);
}

namespace gpusched {
namespace {

TEST(ProfileReader, EquivalentBlocksRoundTripAndBadWeights) {
  auto g = small_h100_profile("eq");
  g.profile.equivalent_blocks = {{"histogram-s1", 1.618}, {"xtea-s2", 0.0}};
  EXPECT_EQ(written_and_read(g).equivalent_blocks, g.profile.equivalent_blocks);
  Warnings w;
  const std::string& head = kMinimalProfile;
  // A negative weight, a weight past 64 blocks and text each name the table and the key.
  for (const std::string bad : {"\"sad-s1\" = -0.5", "\"sad-s1\" = 65", "\"sad-s1\" = \"two\""}) {
    try {
      parse_kernel_profile(head + "[equivalent_blocks]\n" + bad + "\n", "k.toml", "", &w);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("equivalent_blocks.sad-s1"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpusched
