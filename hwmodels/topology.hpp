#pragma once
// The hardware as a Boost.Graph graph: GPUs, NVSwitches, CPUs, host ports,
// NICs and scale-out switches; every link is two directed edges, each with
// its per-direction bandwidth and latency. route() gives the path between two
// nodes, its hop count, bottleneck bandwidth and summed latency.
//
// Modelling choices: the NVSwitch chips of one scale-up domain are one
// non-blocking node (NCCL stripes every transfer over all chips, so per-chip
// nodes would only split each transfer into equal parallel parts); its
// `index` keeps the chip count. GPUs and CPUs never forward traffic.
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "hwmodels/cluster_hardware.hpp"
#include "hwmodels/system.hpp"

namespace agentsim::hw {

enum class NodeKind { kGpu, kNvSwitch, kCpu, kHostPort, kNic, kLeafSwitch, kSpineSwitch };
std::string_view to_string(NodeKind k);

struct TopoNode {
  NodeKind kind = NodeKind::kGpu;
  int system = -1;   // owning system, -1 for fabric switches
  int index = 0;     // index within its kind and system (NVSwitch: chip count)
  std::string name;  // e.g. "s1/gpu3", "leaf2", "spine0"
};

struct TopoLink {
  double bw_Bps = 0;     // this direction
  double latency_s = 0;  // one traversal
  int id = 0;            // dense directed-edge id, 0..links()-1
};

using TopologyGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, TopoNode, TopoLink>;
using Vertex = TopologyGraph::vertex_descriptor;

struct Route {
  std::vector<Vertex> path;   // a .. b
  std::vector<int> links;     // directed-edge ids along the path
  int hops = 0;               // edges on the path
  double bottleneck_Bps = 0;  // min bandwidth along the path (infinite for a == b)
  double latency_s = 0;       // summed edge latency
};

class Topology {
 public:
  const TopologyGraph& graph() const { return g_; }
  int systems() const { return systems_; }
  int gpus_per_system() const { return gpus_per_system_; }
  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  // GPU `i` in system-major order: system i / gpus_per_system.
  Vertex gpu(int i) const;
  int system_of_gpu(int i) const { return i / gpus_per_system_; }
  std::vector<Vertex> nodes(NodeKind k) const;
  int links() const { return static_cast<int>(link_bw_.size()); }
  double link_bw_Bps(int link_id) const { return link_bw_.at(static_cast<std::size_t>(link_id)); }

  // A shortest path (fewest hops) from a to b. Ties are broken by a hash of
  // (a, b), so different pairs spread over equal paths (ECMP) deterministically.
  // Throws core::Error when b is unreachable.
  Route route(Vertex a, Vertex b) const;
  Route gpu_route(int a, int b) const { return route(gpu(a), gpu(b)); }

  // Builders (used by build_topology).
  Vertex add_node(NodeKind kind, int system, int index, std::string name);
  // Two directed edges with the same per-direction bandwidth and latency.
  void add_link(Vertex a, Vertex b, double bw_Bps, double latency_s);
  void set_layout(int systems, int gpus_per_system, std::vector<Vertex> gpus);

 private:
  TopologyGraph g_;
  std::vector<double> link_bw_;
  std::vector<Vertex> gpus_;
  int systems_ = 0;
  int gpus_per_system_ = 0;
};

// One system by its template (hgx, nvl72, amd-mesh); NICs present, no switches.
Topology build_topology(const System& s);
// N systems and their scale-out fabric.
Topology build_topology(const ClusterHardware& c);

}  // namespace agentsim::hw
