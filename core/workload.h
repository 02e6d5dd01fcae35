// Workload: launches of kernel profiles with arrivals, tenants, priorities and deadlines, and their
// dependencies as a DAG on Boost.Graph (stream order and explicit edges).
#pragma once
#include <boost/graph/adjacency_list.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_profile.h"
#include "core/time.h"

namespace gpusched {

struct Launch {
  std::string id;
  std::size_t kernel = 0;  // index into Workload::kernels
  std::string tenant;
  std::string stream;  // launches of one stream run in file order; "" = no stream
  TimeNs arrival = 0;
  int priority = 0;
  std::optional<TimeNs> deadline;  // absolute time
  // Its blocks touch disjoint slices of its data, so micro-kernels of it may run on several GPUs at once,
  // each moving only its slice (seed 004 section IV); only time-sharing policies use it.
  bool block_coalesced = false;
  std::vector<std::size_t> after;  // explicit dependencies (launch indices)
  int line = 0;                    // where the launch is defined in its file, for messages
};

class WorkloadDag {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

  WorkloadDag() = default;
  // Builds the DAG: stream order plus explicit edges. Throws InputError naming the launches of a cycle.
  static WorkloadDag build(const std::vector<Launch>& launches, const std::string& file);

  const Graph& graph() const { return graph_; }
  const std::vector<std::size_t>& predecessors(std::size_t launch) const { return preds_[launch]; }
  const std::vector<std::size_t>& successors(std::size_t launch) const { return succs_[launch]; }
  // A topological order (ties by launch index): the order the engine releases launches in.
  const std::vector<std::size_t>& release_order() const { return order_; }

 private:
  Graph graph_;
  std::vector<std::vector<std::size_t>> preds_, succs_;
  std::vector<std::size_t> order_;
};

struct Workload {
  std::string name;
  std::string file;
  std::string gpu;    // GPU named by the file ("" = none; the command line may name one)
  int gpu_count = 1;  // GPUs in the node
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  std::vector<std::string> kernel_keys;  // names used in the file's [kernels] table
  std::vector<Launch> launches;
  WorkloadDag dag;

  const KernelProfile& kernel_of(std::size_t launch) const { return *kernels[launches[launch].kernel]; }
  std::int64_t total_blocks() const;
};

// Makes every kernel of `w` replay `time` (kernel_profile.h, select_block_time); kernels are copied, so
// profiles shared with other workloads are left as they are.
void select_block_time(Workload& w, BlockTime time);

// Builds a workload in code (tests, generators); checks ids and builds the DAG.
Workload make_workload(std::string name, std::vector<std::shared_ptr<const KernelProfile>> kernels,
                       std::vector<Launch> launches);

}  // namespace gpusched
