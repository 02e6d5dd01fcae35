#include "core/block_records_csv.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/atomic_file.h"
#include "core/error.h"

namespace gpusched {
namespace {

constexpr std::string_view kHeader = "block,sm,start,end";
constexpr const char* kFieldNames[4] = {"block", "sm", "start", "end"};
constexpr std::size_t kChunk = 1 << 20;
constexpr std::size_t kMaxLine = 1 << 20;

// Parses a decimal integer; false when the text is not one or does not fit in 64 bits.
bool parse_int(std::string_view s, std::int64_t& out, bool& overflow) {
  overflow = false;
  std::size_t p = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) p = 1;
  if (p == s.size()) return false;
  std::int64_t v = 0;
  for (; p < s.size(); ++p) {
    if (s[p] < '0' || s[p] > '9') return false;
    const int d = s[p] - '0';
    if (v > (INT64_MAX - d) / 10) {
      overflow = true;
      return false;
    }
    v = v * 10 + d;
  }
  out = negative ? -v : v;
  return true;
}

// Parses one CSV line into a record, or throws naming the line, column and field.
void parse_line(std::string_view text, const std::string& path, std::int64_t line, const BlockRecordLimits& lim,
                BlockRecord& out) {
  std::string_view fields[4];
  int columns[4] = {1, 1, 1, 1};
  int n = 0;
  std::size_t start = 0;
  const auto at = [&](int column) { return SourcePosition{path, static_cast<int>(line), column}; };
  for (;;) {
    const std::size_t comma = text.find(',', start);
    if (n == 4)
      throw InputError(at(static_cast<int>(start) + 1), "end",
                       expected_found("4 comma-separated fields (block,sm,start,end)", "more than 4"));
    fields[n] = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    columns[n] = static_cast<int>(start) + 1;
    ++n;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (n < 4)
    throw InputError(at(static_cast<int>(text.size()) + 1), kFieldNames[n],
                     expected_found("4 comma-separated fields (block,sm,start,end)", fmt::format("{}", n)));
  std::int64_t values[4];
  for (int f = 0; f < 4; ++f) {
    bool overflow = false;
    if (!parse_int(fields[f], values[f], overflow))
      throw InputError(at(columns[f]), kFieldNames[f],
                       expected_found(overflow ? "an integer that fits in 64 bits" : "an integer",
                                      fmt::format("\"{}\"", fields[f])));
  }
  auto bad = [&](int f, const std::string& expected) {
    throw InputError(at(columns[f]), kFieldNames[f], expected_found(expected, fmt::format("{}", values[f])));
  };
  if (values[0] < 0 || values[0] >= lim.block_count)
    bad(0, lim.block_count == INT64_MAX ? std::string("a block index >= 0")
                                        : fmt::format("a block index in [0, {}]", lim.block_count - 1));
  if (values[1] < 0 || (lim.sm_count > 0 && values[1] >= lim.sm_count) || values[1] > INT32_MAX)
    bad(1, lim.sm_count > 0 ? fmt::format("an SM id in [0, {}]", lim.sm_count - 1) : std::string("an SM id >= 0"));
  if (values[2] < 0) bad(2, "a non-negative time");
  if (values[3] < 0) bad(3, "a non-negative time");
  if (values[3] < values[2]) bad(3, fmt::format("an end time >= start ({})", values[2]));
  out.block = values[0];
  out.sm = static_cast<int>(values[1]);
  if (lim.cycles_clock_mhz > 0) {
    out.start = cycles_to_ns(values[2], lim.cycles_clock_mhz);
    out.end = cycles_to_ns(values[3], lim.cycles_clock_mhz);
  } else {
    out.start = values[2];
    out.end = values[3];
  }
}

std::string_view strip_cr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

void check_header(std::string_view first, bool have_line, const std::string& path) {
  if (!have_line)
    throw InputError(SourcePosition{path, 1, 0}, "header",
                     expected_found(fmt::format("the header line \"{}\"", kHeader), "an empty file"));
  if (first != kHeader)
    throw InputError(SourcePosition{path, 1, 1}, "header",
                     expected_found(fmt::format("the header line \"{}\"", kHeader), fmt::format("\"{}\"", first)));
}

}  // namespace

BlockRecordReader::BlockRecordReader(const std::string& path, BlockRecordLimits limits)
    : path_(path), limits_(limits) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw InputError(SourcePosition{path, 0, 0}, "cannot open the file");
  buffer_.resize(kChunk);
  const char *b = nullptr, *e = nullptr;
  const bool have = next_line(b, e);
  check_header(have ? strip_cr(std::string_view(b, static_cast<std::size_t>(e - b))) : std::string_view(), have,
               path_);
}

BlockRecordReader::~BlockRecordReader() {
  if (file_) std::fclose(file_);
}

bool BlockRecordReader::refill() {
  if (eof_) return false;
  // Keep the unread tail at the front of the buffer.
  const std::size_t tail = size_ - pos_;
  if (tail > 0 && pos_ > 0) std::memmove(buffer_.data(), buffer_.data() + pos_, tail);
  size_ = tail;
  pos_ = 0;
  if (size_ == buffer_.size()) {  // a line longer than the buffer
    if (buffer_.size() >= kMaxLine)
      throw InputError(SourcePosition{path_, static_cast<int>(line_ + 1), 0},
                       "line longer than 1 MiB: not a block-record CSV");
    buffer_.resize(buffer_.size() * 2);
  }
  const std::size_t got = std::fread(buffer_.data() + size_, 1, buffer_.size() - size_, file_);
  if (got == 0) eof_ = true;
  size_ += got;
  return got > 0;
}

bool BlockRecordReader::next_line(const char*& begin, const char*& end) {
  for (;;) {
    const char* start = buffer_.data() + pos_;
    const void* nl = std::memchr(start, '\n', size_ - pos_);
    if (nl) {
      begin = start;
      end = static_cast<const char*>(nl);
      pos_ = static_cast<std::size_t>(end - buffer_.data()) + 1;
      ++line_;
      return true;
    }
    if (!refill()) {
      if (pos_ < size_) {  // last line without a newline
        begin = buffer_.data() + pos_;
        end = buffer_.data() + size_;
        pos_ = size_;
        ++line_;
        return true;
      }
      return false;
    }
  }
}

bool BlockRecordReader::next(BlockRecord& out) {
  const char *b = nullptr, *e = nullptr;
  while (next_line(b, e)) {
    std::string_view text = strip_cr(std::string_view(b, static_cast<std::size_t>(e - b)));
    if (text.empty() || text.front() == '#') continue;
    parse_line(text, path_, line_, limits_, out);
    return true;
  }
  return false;
}

std::vector<BlockRecord> parse_block_records(const std::string& text, const std::string& name,
                                             BlockRecordLimits limits) {
  std::vector<BlockRecord> out;
  std::int64_t line = 0;
  std::size_t pos = 0;
  bool header_seen = false;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view l = strip_cr(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
    ++line;
    if (!header_seen) {
      check_header(l, true, name);
      header_seen = true;
      continue;
    }
    if (l.empty() || l.front() == '#') continue;
    BlockRecord r;
    parse_line(l, name, line, limits, r);
    out.push_back(r);
  }
  if (!header_seen) check_header({}, false, name);
  return out;
}

void write_block_records(const std::string& path, const std::vector<BlockRecord>& records) {
  AtomicFile out(path);
  write_block_records(out, records);
  out.commit();
}

void write_block_records(AtomicFile& out, const std::vector<BlockRecord>& records) {
  std::string buf;
  buf.reserve(1 << 16);
  buf.append(kHeader).push_back('\n');
  for (const auto& r : records) {
    fmt::format_to(std::back_inserter(buf), "{},{},{},{}\n", r.block, r.sm, r.start, r.end);
    if (buf.size() > (1 << 16) - 128) {
      out.write(buf);
      buf.clear();
    }
  }
  out.write(buf);
}

}  // namespace gpusched
