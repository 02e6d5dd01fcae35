// Errors in user input. Every reader reports one InputError naming the file, the line (and column
// where known), the field, what was expected and what was found; the command-line front ends turn it
// into exit code 2 (DESIGN, "Errors and bad input").
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace gpusched {

inline constexpr int kExitInputError = 2;

struct SourcePosition {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  // Message: "FILE:LINE:COL: field 'FIELD': PROBLEM" (LINE/COL/field omitted where unknown).
  InputError(const SourcePosition& where, const std::string& field, const std::string& problem);
  // For problems that are not about one field (for example a cyclic dependency).
  InputError(const SourcePosition& where, const std::string& problem);

  const SourcePosition& where() const { return where_; }
  const std::string& field() const { return field_; }

 private:
  SourcePosition where_;
  std::string field_;
};

// "expected E, found F" in one place, so every reader words it the same way.
std::string expected_found(const std::string& expected, const std::string& found);

// Warnings (unknown fields and the like) are collected by readers and printed by the front end.
using Warnings = std::vector<std::string>;

}  // namespace gpusched
