// The toml++ implementation is compiled here (TOML_IMPLEMENTATION) so that gpusched_core links no toml++
// shared library; other files include only the declarations.
#define TOML_IMPLEMENTATION
#include "core/toml_support.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "core/text_file.h"

namespace gpusched {

struct TomlDocument::Impl {
  toml::table table;
};

TomlDocument::TomlDocument(TomlDocument&& o) noexcept : file_(std::move(o.file_)), impl_(o.impl_) {
  o.impl_ = nullptr;
}
TomlDocument& TomlDocument::operator=(TomlDocument&& o) noexcept {
  std::swap(file_, o.file_);
  std::swap(impl_, o.impl_);
  return *this;
}
TomlDocument::~TomlDocument() { delete impl_; }
const toml::table& TomlDocument::root() const { return impl_->table; }

namespace {

// toml++ 3.3 reaches __builtin_unreachable() on some non-ASCII characters where it expects whitespace
// (found by tests/fuzz). gpusched files are therefore ASCII, except in full-line comments, which the
// parser skips whole: anything else is refused here first, with the character's position.
void check_ascii(std::string_view text, const std::string& name) {
  int line = 1, column = 0;
  bool comment_line = false, line_start = true;
  for (const char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      comment_line = false;
      line_start = true;
      continue;
    }
    if (line_start && c != ' ' && c != '\t') {
      comment_line = c == '#';
      line_start = false;
    }
    if (static_cast<unsigned char>(c) >= 0x80 && !comment_line)
      throw InputError(SourcePosition{name, line, column},
                       "a non-ASCII character: gpusched files are ASCII outside full-line comments");
  }
}

}  // namespace

TomlDocument TomlDocument::parse_string(std::string_view text, const std::string& name) {
  check_ascii(text, name);
  TomlDocument doc;
  doc.file_ = name;
  try {
    doc.impl_ = new Impl{toml::parse(text, name)};
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw InputError(SourcePosition{name, static_cast<int>(b.line), static_cast<int>(b.column)},
                     fmt::format("not valid TOML: {}", e.description()));
  }
  return doc;
}

TomlDocument TomlDocument::parse_file(const std::string& path) {
  return parse_string(read_text_file(path), path);
}

std::string describe_node(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return fmt::format("string \"{}\"", n.as_string()->get());
    case toml::node_type::integer: return fmt::format("integer {}", n.as_integer()->get());
    case toml::node_type::floating_point: return fmt::format("float {}", n.as_floating_point()->get());
    case toml::node_type::boolean: return fmt::format("boolean {}", n.as_boolean()->get());
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

TableReader::TableReader(const toml::table& table, std::string file, std::string path, Warnings* warnings)
    : table_(table), file_(std::move(file)), path_(std::move(path)), warnings_(warnings) {}

std::string TableReader::field_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

SourcePosition TableReader::position() const {
  const auto& b = table_.source().begin;
  // The root table has no source position of its own: report line 1.
  if (b.line == 0) return SourcePosition{file_, 1, 0};
  return SourcePosition{file_, static_cast<int>(b.line), static_cast<int>(b.column)};
}

SourcePosition TableReader::position_of(std::string_view key) const {
  if (const auto* n = table_.get(key)) {
    const auto& b = n->source().begin;
    if (b.line > 0) return SourcePosition{file_, static_cast<int>(b.line), static_cast<int>(b.column)};
  }
  return position();
}

void TableReader::fail(std::string_view key, const std::string& problem) const {
  throw InputError(position_of(key), field_path(key), problem);
}

void TableReader::fail_here(const std::string& problem) const {
  if (path_.empty()) throw InputError(position(), problem);
  throw InputError(position(), path_, problem);
}

const toml::node* TableReader::get(std::string_view key) const {
  const auto* n = table_.get(key);
  if (n) used_.emplace(key);
  return n;
}

const toml::node& TableReader::require(std::string_view key) const {
  const auto* n = get(key);
  if (!n) throw InputError(position(), field_path(key), "missing (this field is required)");
  return *n;
}

bool TableReader::has(std::string_view key) const { return table_.contains(key); }

std::int64_t TableReader::integer(std::string_view key) const {
  const auto& n = require(key);
  if (!n.is_integer()) fail(key, expected_found("an integer", describe_node(n)));
  return n.as_integer()->get();
}

std::int64_t TableReader::integer_or(std::string_view key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

std::optional<std::int64_t> TableReader::optional_integer(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}

std::int64_t TableReader::integer_in(std::string_view key, std::int64_t lo, std::int64_t hi,
                                     std::optional<std::int64_t> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const auto v = integer(key);
  if (v < lo || v > hi) {
    std::string range = hi >= INT64_MAX / 4 ? fmt::format("an integer >= {}", lo)
                                        : fmt::format("an integer in [{}, {}]", lo, hi);
    fail(key, expected_found(range, fmt::format("{}", v)));
  }
  return v;
}

double TableReader::number(std::string_view key) const {
  const auto& n = require(key);
  if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
  if (n.is_floating_point()) return n.as_floating_point()->get();
  fail(key, expected_found("a number", describe_node(n)));
}

double TableReader::number_or(std::string_view key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

std::optional<double> TableReader::optional_number(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return number(key);
}

std::string TableReader::string(std::string_view key) const {
  const auto& n = require(key);
  if (!n.is_string()) fail(key, expected_found("a string", describe_node(n)));
  return n.as_string()->get();
}

std::string TableReader::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : fallback;
}

bool TableReader::boolean_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& n = require(key);
  if (const auto* b = n.as_boolean()) return b->get();
  fail(key, expected_found("true or false", describe_node(n)));
}

std::vector<std::string> TableReader::string_array_or_empty(std::string_view key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const auto& n = require(key);
  const auto* arr = n.as_array();
  if (!arr) fail(key, expected_found("an array of strings", describe_node(n)));
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto& e = *arr->get(i);
    if (!e.is_string()) {
      const auto& b = e.source().begin;
      throw InputError(SourcePosition{file_, static_cast<int>(b.line), static_cast<int>(b.column)},
                       fmt::format("{}[{}]", field_path(key), i), expected_found("a string", describe_node(e)));
    }
    out.push_back(e.as_string()->get());
  }
  return out;
}

std::vector<std::int64_t> TableReader::integer_array(std::string_view key) const {
  const auto& n = require(key);
  const auto* arr = n.as_array();
  if (!arr) fail(key, expected_found("an array of integers", describe_node(n)));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto& e = *arr->get(i);
    if (!e.is_integer()) {
      const auto& b = e.source().begin;
      throw InputError(SourcePosition{file_, static_cast<int>(b.line), static_cast<int>(b.column)},
                       fmt::format("{}[{}]", field_path(key), i), expected_found("an integer", describe_node(e)));
    }
    out.push_back(e.as_integer()->get());
  }
  return out;
}

const toml::table* TableReader::table_or_null(std::string_view key) const {
  const auto* n = get(key);
  if (!n) return nullptr;
  if (!n->is_table()) fail(key, expected_found("a table", describe_node(*n)));
  return n->as_table();
}

std::vector<const toml::table*> TableReader::table_array(std::string_view key) const {
  std::vector<const toml::table*> out;
  const auto* n = get(key);
  if (!n) return out;
  const auto* arr = n->as_array();
  if (!arr) fail(key, expected_found(fmt::format("an array of tables ([[{}]])", key), describe_node(*n)));
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto& e = *arr->get(i);
    if (!e.is_table()) {
      const auto& b = e.source().begin;
      throw InputError(SourcePosition{file_, static_cast<int>(b.line), static_cast<int>(b.column)},
                       fmt::format("{}[{}]", field_path(key), i), expected_found("a table", describe_node(e)));
    }
    out.push_back(e.as_table());
  }
  return out;
}

void TableReader::finish() const {
  if (!warnings_) return;
  for (const auto& [key, node] : table_) {
    if (used_.count(key.str())) continue;
    const auto& b = node.source().begin;
    warnings_->push_back(fmt::format("{}:{}:{}: warning: unknown field '{}' (ignored)", file_, b.line, b.column,
                                     field_path(key.str())));
  }
}

void check_format_header(const TableReader& r, std::string_view format, std::int64_t max_version) {
  if (!r.has("format"))
    throw InputError(r.position(), "format", fmt::format("missing: expected format = \"{}\"", format));
  const auto f = r.string("format");
  if (f != format) r.fail("format", expected_found(fmt::format("\"{}\"", format), fmt::format("\"{}\"", f)));
  const auto v = r.integer("version");
  if (v < 1 || v > max_version)
    r.fail("version", expected_found(fmt::format("a version from 1 to {}", max_version), fmt::format("{}", v)));
}

}  // namespace gpusched
