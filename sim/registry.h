// Plug-in registries (policies, interference models), in the style of Ramulator 2's
// RAMULATOR_REGISTER_IMPLEMENTATION: each implementation registers itself by name with a one-line
// description and its declared parameters. The registry lives in a function-local static; gpusched_sim is
// linked whole-archive (CMake target gpusched::sim) so the linker keeps every registration.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/params.h"

namespace gpusched::sim {

template <class Interface>
struct PluginInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Interface>(const Params&)> make;
};

template <class Interface>
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }
  bool add(PluginInfo<Interface> info) {
    const std::string key = info.name;
    if (!entries_.emplace(key, std::move(info)).second)
      throw std::logic_error("plug-in registered twice: " + key);
    return true;
  }
  const PluginInfo<Interface>* find(const std::string& name) const {
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  // All entries sorted by name.
  std::vector<const PluginInfo<Interface>*> all() const {
    std::vector<const PluginInfo<Interface>*> out;
    for (const auto& [_, info] : entries_) out.push_back(&info);
    return out;
  }
  std::string names() const {
    std::string out;
    for (const auto& [name, _] : entries_) out += (out.empty() ? "" : ", ") + name;
    return out;
  }

 private:
  std::map<std::string, PluginInfo<Interface>> entries_;
};

}  // namespace gpusched::sim

#define GPUSCHED_REGISTER_PLUGIN(Interface, tag, ...)                                                    \
  namespace {                                                                                            \
  [[maybe_unused]] const bool gpusched_registered_##tag =                                                \
      ::gpusched::sim::Registry<Interface>::instance().add(::gpusched::sim::PluginInfo<Interface>{__VA_ARGS__}); \
  }
