#include "core/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/strong_components.hpp>
#include <boost/graph/topological_sort.hpp>
#include <map>
#include <queue>

#include "core/error.h"

namespace gpusched {

WorkloadDag WorkloadDag::build(const std::vector<Launch>& launches, const std::string& file) {
  WorkloadDag dag;
  const std::size_t n = launches.size();
  dag.graph_ = Graph(n);
  dag.preds_.assign(n, {});
  dag.succs_.assign(n, {});
  auto add_edge = [&](std::size_t from, std::size_t to) {
    if (std::find(dag.succs_[from].begin(), dag.succs_[from].end(), to) != dag.succs_[from].end()) return;
    boost::add_edge(from, to, dag.graph_);
    dag.succs_[from].push_back(to);
    dag.preds_[to].push_back(from);
  };
  std::map<std::string, std::size_t> last_in_stream;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t d : launches[i].after) add_edge(d, i);
    if (!launches[i].stream.empty()) {
      auto [it, fresh] = last_in_stream.try_emplace(launches[i].stream, i);
      if (!fresh) {
        add_edge(it->second, i);
        it->second = i;
      }
    }
  }
  // Cycles: any strongly connected component of more than one launch, or a launch depending on itself.
  std::vector<int> component(n);
  const int count = n ? boost::strong_components(dag.graph_, component.data()) : 0;
  std::vector<std::vector<std::size_t>> members(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < n; ++i) members[static_cast<std::size_t>(component[i])].push_back(i);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = members[static_cast<std::size_t>(component[i])];
    const bool self = std::find(dag.succs_[i].begin(), dag.succs_[i].end(), i) != dag.succs_[i].end();
    if (m.size() > 1 || self) {
      std::string names;
      for (std::size_t j : m) names += (names.empty() ? "" : ", ") + launches[j].id;
      throw InputError(SourcePosition{file, launches[m.front()].line, 0},
                       fmt::format("cyclic dependencies among launches {}", names));
    }
  }
  // Kahn's algorithm with the smallest index first, so the order is stable and readable.
  std::vector<std::size_t> indegree(n);
  for (std::size_t i = 0; i < n; ++i) indegree[i] = dag.preds_[i].size();
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    dag.order_.push_back(i);
    for (std::size_t s : dag.succs_[i])
      if (--indegree[s] == 0) ready.push(s);
  }
  return dag;
}

std::int64_t Workload::total_blocks() const {
  std::int64_t total = 0;
  for (const auto& l : launches) total += kernels[l.kernel]->block_count();
  return total;
}

Workload make_workload(std::string name, std::vector<std::shared_ptr<const KernelProfile>> kernels,
                       std::vector<Launch> launches) {
  Workload w;
  w.name = std::move(name);
  w.kernels = std::move(kernels);
  for (const auto& k : w.kernels) w.kernel_keys.push_back(k->name);
  std::map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (launches[i].kernel >= w.kernels.size())
      throw InputError(SourcePosition{w.name, 0, 0}, fmt::format("launch[{}].kernel", i), "kernel index out of range");
    if (!ids.emplace(launches[i].id, i).second)
      throw InputError(SourcePosition{w.name, 0, 0}, fmt::format("launch[{}].id", i),
                       fmt::format("duplicate launch id '{}'", launches[i].id));
    if (launches[i].tenant.empty()) launches[i].tenant = launches[i].id;
  }
  w.launches = std::move(launches);
  w.dag = WorkloadDag::build(w.launches, w.name);
  return w;
}

void select_block_time(Workload& w, BlockTime time) {
  for (auto& k : w.kernels) {
    const bool already = std::all_of(k->record_sets.begin(), k->record_sets.end(), [&](const RecordSet& s) {
      return s.block_time == time || s.alternate_by_block.empty();
    });
    if (already) continue;  // nothing to switch: no copy
    auto copy = std::make_shared<KernelProfile>(*k);
    select_block_time(*copy, time);
    k = std::move(copy);
  }
}

}  // namespace gpusched
