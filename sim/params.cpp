#include "sim/params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace gpusched::sim {
namespace {

bool parse_int(const std::string& s, long long& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end && *end == '\0';
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end && *end == '\0';
}

bool parse_bool(const std::string& s, bool& out) {
  if (s == "true" || s == "1" || s == "yes" || s == "on") return out = true, true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return out = false, true;
  return false;
}

}  // namespace

std::string to_string(ParamType t) {
  switch (t) {
    case ParamType::Int: return "int";
    case ParamType::Double: return "double";
    case ParamType::Bool: return "bool";
    case ParamType::String: return "string";
  }
  return "string";
}

Params Params::resolve(const std::string& owner, const std::vector<ParamSpec>& specs,
                       const std::map<std::string, std::string>& given) {
  for (const auto& entry : given) {
    const std::string& name = entry.first;
    if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; })) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw std::invalid_argument(fmt::format("{}: unknown parameter '{}' (parameters: {})", owner, name,
                                              known.empty() ? "none" : known));
    }
  }
  Params p;
  for (const auto& s : specs) {
    const auto it = given.find(s.name);
    const std::string value = it == given.end() ? s.default_value : it->second;
    long long i = 0;
    double d = 0;
    bool b = false;
    const bool ok = s.type == ParamType::Int      ? parse_int(value, i)
                    : s.type == ParamType::Double ? parse_double(value, d)
                    : s.type == ParamType::Bool   ? parse_bool(value, b)
                                                  : true;
    if (!ok)
      throw std::invalid_argument(fmt::format("{}: parameter '{}' expects {}, found \"{}\"", owner, s.name,
                                              s.type == ParamType::Int      ? "an integer"
                                              : s.type == ParamType::Double ? "a number"
                                                                            : "true or false",
                                              value));
    p.values_.emplace_back(s.name, value);
  }
  return p;
}

const std::string& Params::raw(const std::string& name) const {
  for (const auto& [n, v] : values_)
    if (n == name) return v;
  throw std::logic_error(fmt::format("parameter '{}' was not declared", name));
}

long long Params::get_int(const std::string& name) const { return std::strtoll(raw(name).c_str(), nullptr, 10); }
double Params::get_double(const std::string& name) const { return std::strtod(raw(name).c_str(), nullptr); }
bool Params::get_bool(const std::string& name) const {
  bool b = false;
  parse_bool(raw(name), b);
  return b;
}
const std::string& Params::get_string(const std::string& name) const { return raw(name); }

std::string Params::canonical() const {
  std::string out;
  for (const auto& [n, v] : values_) out += fmt::format("{}{}={}", out.empty() ? "" : ",", n, v);
  return out;
}

}  // namespace gpusched::sim
