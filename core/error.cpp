#include "core/error.h"

#include <fmt/format.h>

namespace gpusched {
namespace {

std::string prefix(const SourcePosition& where) {
  std::string text = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    text += fmt::format(":{}", where.line);
    if (where.column > 0) text += fmt::format(":{}", where.column);
  }
  return text;
}

}  // namespace

InputError::InputError(const SourcePosition& where, const std::string& field, const std::string& problem)
    : std::runtime_error(fmt::format("{}: field '{}': {}", prefix(where), field, problem)),
      where_(where),
      field_(field) {}

InputError::InputError(const SourcePosition& where, const std::string& problem)
    : std::runtime_error(fmt::format("{}: {}", prefix(where), problem)), where_(where) {}

std::string expected_found(const std::string& expected, const std::string& found) {
  return fmt::format("expected {}, found {}", expected, found);
}

}  // namespace gpusched
