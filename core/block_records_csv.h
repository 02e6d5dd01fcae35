// Block records as CSV ("block,sm,start,end"), read as a stream: a 10-million-block file is read
// without holding more than the caller keeps. Every bad line is reported with file, line and field.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/kernel_profile.h"

namespace gpusched {

struct BlockRecordLimits {
  std::int64_t block_count = INT64_MAX;  // block indices must be below this
  int sm_count = 0;                      // SM ids must be below this (0: not checked)
  double cycles_clock_mhz = 0.0;         // > 0: the file is in cycles at this clock; converted to ns
};

class BlockRecordReader {
 public:
  BlockRecordReader(const std::string& path, BlockRecordLimits limits);
  ~BlockRecordReader();
  BlockRecordReader(const BlockRecordReader&) = delete;
  BlockRecordReader& operator=(const BlockRecordReader&) = delete;

  // Reads the next record; false at the end of the file. Throws InputError on a bad line.
  bool next(BlockRecord& out);
  std::int64_t line() const { return line_; }
  const std::string& path() const { return path_; }

 private:
  bool next_line(const char*& begin, const char*& end);
  bool refill();
  std::string path_;
  BlockRecordLimits limits_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, size_ = 0;
  bool eof_ = false;
  std::int64_t line_ = 0;
};

// Parses a whole CSV held in memory (used by the fuzz target and tests).
std::vector<BlockRecord> parse_block_records(const std::string& text, const std::string& name,
                                             BlockRecordLimits limits);

// Writes records in ns with the header line; the file is written to a temporary name and renamed, so a
// failed write leaves nothing half-written.
void write_block_records(const std::string& path, const std::vector<BlockRecord>& records);
// The same into a file the caller commits (several files that appear together).
void write_block_records(AtomicFile& out, const std::vector<BlockRecord>& records);

}  // namespace gpusched
