// Declared parameters of plug-ins (policies, interference models): name, type, default and meaning,
// checked when set from the command line or a sweep file.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gpusched::sim {

enum class ParamType { Int, Double, Bool, String };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Double;
  std::string default_value;
  std::string meaning;
};

std::string to_string(ParamType t);

// Parameter values resolved against their specs (defaults filled in, types checked).
class Params {
 public:
  Params() = default;
  // Throws std::invalid_argument naming the plug-in and parameter for unknown names or bad values.
  static Params resolve(const std::string& owner, const std::vector<ParamSpec>& specs,
                        const std::map<std::string, std::string>& given);
  long long get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  // "a=1,b=2" in declaration order: part of a run's identity.
  std::string canonical() const;

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  const std::string& raw(const std::string& name) const;
};

}  // namespace gpusched::sim
