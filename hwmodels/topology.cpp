#include "hwmodels/topology.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>

#include "sim/core/error.hpp"

namespace agentsim::hw {

std::string_view to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kGpu: return "gpu";
    case NodeKind::kNvSwitch: return "nvswitch";
    case NodeKind::kCpu: return "cpu";
    case NodeKind::kHostPort: return "hostport";
    case NodeKind::kNic: return "nic";
    case NodeKind::kLeafSwitch: return "leaf";
    case NodeKind::kSpineSwitch: return "spine";
  }
  return "?";
}

std::string_view to_string(FabricKind k) {
  return k == FabricKind::kRailOptimized ? "rail-optimized" : "fat-tree";
}

Vertex Topology::gpu(int i) const {
  if (i < 0 || i >= gpu_count()) {
    throw core::Error("GPU " + std::to_string(i) + " out of range 0.." + std::to_string(gpu_count() - 1));
  }
  return gpus_[static_cast<std::size_t>(i)];
}

std::vector<Vertex> Topology::nodes(NodeKind k) const {
  std::vector<Vertex> out;
  for (Vertex v = 0; v < boost::num_vertices(g_); ++v) {
    if (g_[v].kind == k) out.push_back(v);
  }
  return out;
}

Vertex Topology::add_node(NodeKind kind, int system, int index, std::string name) {
  return boost::add_vertex(TopoNode{kind, system, index, std::move(name)}, g_);
}

void Topology::add_link(Vertex a, Vertex b, double bw_Bps, double latency_s) {
  for (const auto& [u, v] : {std::pair{a, b}, std::pair{b, a}}) {
    const int id = static_cast<int>(link_bw_.size());
    boost::add_edge(u, v, TopoLink{bw_Bps, latency_s, id}, g_);
    link_bw_.push_back(bw_Bps);
  }
}

void Topology::set_layout(int systems, int gpus_per_system, std::vector<Vertex> gpus) {
  systems_ = systems;
  gpus_per_system_ = gpus_per_system;
  gpus_ = std::move(gpus);
}

namespace {

bool forwards(NodeKind k) { return k != NodeKind::kGpu && k != NodeKind::kCpu; }

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

Route Topology::route(Vertex a, Vertex b) const {
  Route r;
  r.path.push_back(a);
  if (a == b) {
    r.bottleneck_Bps = std::numeric_limits<double>::infinity();
    return r;
  }
  // Hop distance to b over forwarding nodes (links are symmetric, so a BFS
  // from b along out-edges gives distances towards b).
  const std::size_t n = boost::num_vertices(g_);
  constexpr int kUnreached = std::numeric_limits<int>::max();
  std::vector<int> dist(n, kUnreached);
  std::deque<Vertex> queue{b};
  dist[b] = 0;
  while (!queue.empty()) {
    const Vertex u = queue.front();
    queue.pop_front();
    if (u != b && !forwards(g_[u].kind)) continue;
    for (auto [e, end] = boost::out_edges(u, g_); e != end; ++e) {
      const Vertex v = boost::target(*e, g_);
      if (dist[v] == kUnreached) {
        dist[v] = dist[u] + 1;
        queue.push_back(v);
      }
    }
  }
  if (dist[a] == kUnreached) {
    throw core::Error("no route from " + g_[a].name + " to " + g_[b].name);
  }
  r.bottleneck_Bps = std::numeric_limits<double>::infinity();
  Vertex u = a;
  std::uint64_t h = mix((static_cast<std::uint64_t>(a) << 32) ^ static_cast<std::uint64_t>(b));
  while (u != b) {
    std::vector<TopologyGraph::edge_descriptor> next;
    for (auto [e, end] = boost::out_edges(u, g_); e != end; ++e) {
      const Vertex v = boost::target(*e, g_);
      if (dist[v] == dist[u] - 1 && (v == b || forwards(g_[v].kind))) next.push_back(*e);
    }
    const auto& e = next[h % next.size()];
    h = mix(h + 1);
    const TopoLink& l = g_[e];
    r.links.push_back(l.id);
    r.bottleneck_Bps = std::min(r.bottleneck_Bps, l.bw_Bps);
    r.latency_s += l.latency_s;
    u = boost::target(e, g_);
    r.path.push_back(u);
  }
  r.hops = static_cast<int>(r.links.size());
  return r;
}

namespace {

std::string node_name(int system, std::string_view kind, int i) {
  return "s" + std::to_string(system) + "/" + std::string(kind) + std::to_string(i);
}

// Adds system `si` to `t`; returns its GPUs and NICs.
struct Added {
  std::vector<Vertex> gpus;
  std::vector<Vertex> nics;
};

Added add_system(Topology& t, const System& s, int si, double switch_latency_s) {
  Added out;
  const int n = s.accelerators;
  for (int i = 0; i < n; ++i) out.gpus.push_back(t.add_node(NodeKind::kGpu, si, i, node_name(si, "gpu", i)));

  if (s.topology == "amd-mesh") {
    // Seven links per GPU, one per peer: a pair gets 1/(n-1) of the aggregate.
    const double pair_bw = s.scale_up_bw_Bps / std::max(1, n - 1);
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) t.add_link(out.gpus[static_cast<std::size_t>(i)],
                                                 out.gpus[static_cast<std::size_t>(j)], pair_bw,
                                                 s.scale_up_latency_s);
    }
  } else {
    const Vertex sw = t.add_node(NodeKind::kNvSwitch, si, s.scale_up_switch_chips, node_name(si, "nvswitch", 0));
    for (const Vertex g : out.gpus) t.add_link(g, sw, s.scale_up_bw_Bps, s.scale_up_latency_s / 2);
  }

  const HostSpec& h = s.host;
  std::vector<Vertex> cpus;
  for (int c = 0; c < std::max(1, h.cpus); ++c) cpus.push_back(t.add_node(NodeKind::kCpu, si, c, node_name(si, "cpu", c)));
  const int per_link = std::max(1, h.gpus_per_host_link);
  const int groups = (n + per_link - 1) / per_link;
  for (int k = 0; k < groups; ++k) {
    const Vertex cpu = cpus[static_cast<std::size_t>(k * static_cast<int>(cpus.size()) / groups)];
    if (per_link == 1) {
      t.add_link(out.gpus[static_cast<std::size_t>(k)], cpu, h.gpu_link_bw_Bps, h.gpu_link_latency_s);
      continue;
    }
    // Several GPUs behind one host link (PCIe switch uplink, Grace C2C port).
    const Vertex port = t.add_node(NodeKind::kHostPort, si, k, node_name(si, "hostport", k));
    t.add_link(port, cpu, h.gpu_link_bw_Bps, 0.0);
    for (int i = k * per_link; i < std::min(n, (k + 1) * per_link); ++i) {
      t.add_link(out.gpus[static_cast<std::size_t>(i)], port, h.gpu_link_bw_Bps, h.gpu_link_latency_s);
    }
  }

  // The catalog's scale-out latency is GPU to GPU through one leaf switch:
  // the two GPU-NIC edges carry all of it but that switch.
  const int nics = s.scale_out.nics;
  const double nic_edge_latency_s = std::max(0.0, s.scale_out.latency_s - switch_latency_s) / 2;
  for (int j = 0; j < nics; ++j) {
    const Vertex nic = t.add_node(NodeKind::kNic, si, j, node_name(si, "nic", j));
    const int gi = static_cast<int>(static_cast<long long>(j) * n / nics);
    t.add_link(out.gpus[static_cast<std::size_t>(gi)], nic, s.scale_out.nic_bw_Bps, nic_edge_latency_s);
    out.nics.push_back(nic);
  }
  return out;
}

}  // namespace

Topology build_topology(const System& s) {
  ClusterHardware c;
  c.name = s.name;
  c.system = s;
  c.systems = 1;
  return build_topology(c);
}

Topology build_topology(const ClusterHardware& c) {
  if (c.systems < 1) throw core::Error("a cluster needs at least one system");
  if (c.fabric.leaf_radix < 2) throw core::Error("leaf radix must be at least 2");
  Topology t;
  std::vector<Vertex> gpus;
  std::vector<std::vector<Vertex>> nics;  // [system][nic]
  for (int si = 0; si < c.systems; ++si) {
    Added a = add_system(t, c.system, si, c.fabric.switch_latency_s);
    gpus.insert(gpus.end(), a.gpus.begin(), a.gpus.end());
    nics.push_back(std::move(a.nics));
  }
  t.set_layout(c.systems, c.system.accelerators, std::move(gpus));
  if (c.systems == 1) return t;

  // Order NICs into leaf groups: by rail, or in system order.
  const int per_system = c.system.scale_out.nics;
  if (per_system < 1) throw core::Error("system '" + c.system.name + "' has no NICs to join a cluster");
  std::vector<std::vector<Vertex>> groups;
  const int down = c.fabric.leaf_radix / 2;
  auto fill = [&](const std::vector<Vertex>& order) {
    for (std::size_t i = 0; i < order.size(); i += static_cast<std::size_t>(down)) {
      groups.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                          order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), i + static_cast<std::size_t>(down))));
    }
  };
  if (c.fabric.kind == FabricKind::kRailOptimized) {
    for (int r = 0; r < per_system; ++r) {
      std::vector<Vertex> rail;
      for (int si = 0; si < c.systems; ++si) rail.push_back(nics[static_cast<std::size_t>(si)][static_cast<std::size_t>(r)]);
      fill(rail);
    }
  } else {
    std::vector<Vertex> all;
    for (const auto& sys : nics) all.insert(all.end(), sys.begin(), sys.end());
    fill(all);
  }
  const double bw = c.system.scale_out.nic_bw_Bps;
  const double half_switch = c.fabric.switch_latency_s / 2;
  std::vector<Vertex> leaves;
  for (std::size_t l = 0; l < groups.size(); ++l) {
    const Vertex leaf = t.add_node(NodeKind::kLeafSwitch, -1, static_cast<int>(l), "leaf" + std::to_string(l));
    for (const Vertex nic : groups[l]) t.add_link(nic, leaf, bw, half_switch);
    leaves.push_back(leaf);
  }
  if (leaves.size() > 1) {
    for (int sp = 0; sp < down; ++sp) {
      const Vertex spine = t.add_node(NodeKind::kSpineSwitch, -1, sp, "spine" + std::to_string(sp));
      for (const Vertex leaf : leaves) t.add_link(leaf, spine, bw, half_switch);
    }
  }
  return t;
}

}  // namespace agentsim::hw
