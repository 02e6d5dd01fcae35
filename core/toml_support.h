// Checked access to TOML documents: every getter names the file, line, column and field path of a bad
// value, and TableReader::finish() warns about fields nobody asked for (probably typos).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace toml {
inline namespace v3 {
class table;
class array;
class node;
}  // namespace v3
}  // namespace toml

namespace gpusched {

// A parsed document; owns the table. Throws InputError on syntax errors and unreadable files.
class TomlDocument {
 public:
  static TomlDocument parse_file(const std::string& path);
  static TomlDocument parse_string(std::string_view text, const std::string& name);
  TomlDocument(TomlDocument&&) noexcept;
  TomlDocument& operator=(TomlDocument&&) noexcept;
  ~TomlDocument();
  const toml::table& root() const;
  const std::string& file() const { return file_; }

 private:
  TomlDocument() = default;
  std::string file_;
  struct Impl;
  Impl* impl_ = nullptr;
};

class TableReader {
 public:
  // `path` is the field path of this table ("" for the root, "launch[3]" for an array element).
  TableReader(const toml::table& table, std::string file, std::string path, Warnings* warnings);

  bool has(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;
  std::int64_t integer_or(std::string_view key, std::int64_t fallback) const;
  std::optional<std::int64_t> optional_integer(std::string_view key) const;
  // Range-checked integer: [lo, hi].
  std::int64_t integer_in(std::string_view key, std::int64_t lo, std::int64_t hi,
                          std::optional<std::int64_t> fallback = std::nullopt) const;
  double number(std::string_view key) const;  // integer or float
  double number_or(std::string_view key, double fallback) const;
  std::optional<double> optional_number(std::string_view key) const;
  std::string string(std::string_view key) const;
  std::string string_or(std::string_view key, std::string fallback) const;
  bool boolean_or(std::string_view key, bool fallback) const;
  std::vector<std::string> string_array_or_empty(std::string_view key) const;
  std::vector<std::int64_t> integer_array(std::string_view key) const;
  // The node itself (marked as read), or nullptr; for fields whose type varies.
  const toml::node* node_or_null(std::string_view key) const { return get(key); }
  // Sub-tables and arrays of tables.
  const toml::table* table_or_null(std::string_view key) const;
  std::vector<const toml::table*> table_array(std::string_view key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const;
  [[noreturn]] void fail_here(const std::string& problem) const;
  SourcePosition position_of(std::string_view key) const;
  SourcePosition position() const;
  std::string field_path(std::string_view key) const;
  const std::string& file() const { return file_; }
  Warnings* warnings() const { return warnings_; }

  // Warn about each key not read through this reader.
  void finish() const;

 private:
  const toml::node* get(std::string_view key) const;
  const toml::node& require(std::string_view key) const;
  const toml::table& table_;
  std::string file_;
  std::string path_;
  Warnings* warnings_;
  mutable std::set<std::string, std::less<>> used_;
};

// Checks the `format` and `version` header shared by every gpusched file.
void check_format_header(const TableReader& r, std::string_view format, std::int64_t max_version);

// "string \"abc\"", "integer 5", ... : how a found value is shown in messages.
std::string describe_node(const toml::node& n);

}  // namespace gpusched
