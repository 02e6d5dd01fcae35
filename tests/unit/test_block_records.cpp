#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "core/block_records_csv.h"
#include "core/error.h"

using namespace gpusched;

namespace {
std::string message_of(const std::string& text, BlockRecordLimits lim = {}) {
  try {
    parse_block_records(text, "r.csv", lim);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(BlockRecords, ParsesAndConvertsCycles) {
  BlockRecordLimits lim;
  lim.cycles_clock_mhz = 700.0;
  // 700 cycles at 700 MHz = 1000 ns; 1050 cycles = 1500 ns.
  const auto r = parse_block_records("block,sm,start,end\n0,3,700,1750\n# comment\n\n1,0,0,1050\r\n", "r.csv", lim);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].sm, 3);
  EXPECT_EQ(r[0].start, 1000);
  EXPECT_EQ(r[0].end, 2500);
  EXPECT_EQ(r[1].end, 1500);
}

TEST(BlockRecords, BadInputMessages) {
  EXPECT_EQ(message_of(""), "r.csv:1: field 'header': expected the header line \"block,sm,start,end\", found an empty file");
  EXPECT_EQ(message_of("blk,sm,start,end\n"),
            "r.csv:1:1: field 'header': expected the header line \"block,sm,start,end\", found \"blk,sm,start,end\"");
  EXPECT_EQ(message_of("block,sm,start,end\n0,0,10"),
            "r.csv:2:7: field 'end': expected 4 comma-separated fields (block,sm,start,end), found 3");
  EXPECT_EQ(message_of("block,sm,start,end\n0,0,1,2,3\n"),
            "r.csv:2:9: field 'end': expected 4 comma-separated fields (block,sm,start,end), found more than 4");
  EXPECT_EQ(message_of("block,sm,start,end\n0,x,1,2\n"), "r.csv:2:3: field 'sm': expected an integer, found \"x\"");
  EXPECT_EQ(message_of("block,sm,start,end\n0,0,,2\n"), "r.csv:2:5: field 'start': expected an integer, found \"\"");
  EXPECT_EQ(message_of("block,sm,start,end\n0,0,99999999999999999999,2\n"),
            "r.csv:2:5: field 'start': expected an integer that fits in 64 bits, found \"99999999999999999999\"");
  EXPECT_EQ(message_of("block,sm,start,end\n0,0,-1,2\n"), "r.csv:2:5: field 'start': expected a non-negative time, found -1");
  EXPECT_EQ(message_of("block,sm,start,end\n0,0,5,2\n"),
            "r.csv:2:7: field 'end': expected an end time >= start (5), found 2");
  BlockRecordLimits lim;
  lim.block_count = 4;
  lim.sm_count = 2;
  EXPECT_EQ(message_of("block,sm,start,end\n4,0,0,1\n", lim),
            "r.csv:2:1: field 'block': expected a block index in [0, 3], found 4");
  EXPECT_EQ(message_of("block,sm,start,end\n3,2,0,1\n", lim), "r.csv:2:3: field 'sm': expected an SM id in [0, 1], found 2");
}

TEST(BlockRecords, StreamingReaderMatchesInMemoryParser) {
  const auto path = (std::filesystem::temp_directory_path() / "gpusched_stream_test.csv").string();
  std::vector<BlockRecord> in;
  for (int i = 0; i < 100000; ++i) in.push_back(BlockRecord{i, i % 132, i * 10LL, i * 10LL + 7 + i % 5});
  write_block_records(path, in);
  BlockRecordReader reader(path, BlockRecordLimits{});
  BlockRecord r;
  std::size_t n = 0;
  while (reader.next(r)) {
    ASSERT_EQ(r.block, in[n].block);
    ASSERT_EQ(r.end, in[n].end);
    ++n;
  }
  EXPECT_EQ(n, in.size());
  std::remove(path.c_str());
}

TEST(BlockRecords, StreamingReaderReportsLineNumbers) {
  const auto path = (std::filesystem::temp_directory_path() / "gpusched_stream_bad.csv").string();
  std::vector<BlockRecord> in(5000, BlockRecord{0, 0, 0, 1});
  write_block_records(path, in);
  {
    FILE* f = std::fopen(path.c_str(), "ab");
    std::fputs("1,2,3\n", f);
    std::fclose(f);
  }
  BlockRecordReader reader(path, BlockRecordLimits{});
  BlockRecord r;
  try {
    while (reader.next(r)) {
    }
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 5002);  // header + 5000 records + the bad line
    EXPECT_EQ(e.field(), "end");
  }
  std::remove(path.c_str());
}

TEST(BlockRecords, MissingFileIsAnInputError) {
  EXPECT_THROW(BlockRecordReader("/nonexistent/x.csv", BlockRecordLimits{}), InputError);
}
