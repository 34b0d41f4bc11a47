#include "hwmodels/collective_model.hpp"

#include <algorithm>

#include "hwmodels/max_min_fair.hpp"
#include "sim/core/error.hpp"

namespace agentsim::hw {

std::string_view to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return "all-reduce";
    case CollectiveKind::kReduceScatter: return "reduce-scatter";
    case CollectiveKind::kAllGather: return "all-gather";
    case CollectiveKind::kAllToAll: return "all-to-all";
  }
  return "?";
}

const Route& CollectiveModel::route(int src, int dst) const {
  const auto key = std::make_pair(src, dst);
  auto it = routes_.find(key);
  if (it == routes_.end()) it = routes_.emplace(key, topo_.gpu_route(src, dst)).first;
  return it->second;
}

std::vector<double> CollectiveModel::concurrent(const std::vector<Transfer>& transfers) const {
  std::vector<Route> routes;
  routes.reserve(transfers.size());
  for (const Transfer& t : transfers) routes.push_back(route(t.src, t.dst));
  std::vector<double> out = finish_times(routes, transfers);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (transfers[i].bytes > 0 && transfers[i].src != transfers[i].dst) out[i] += routes[i].latency_s;
  }
  return out;
}

CollectiveCost CollectiveModel::run(const Schedule& s) const {
  CollectiveCost c;
  c.algorithm = s.phases.empty() ? "none" : s.algorithm;
  for (const Phase& p : s.phases) {
    std::vector<Route> routes;
    double alpha = 0;
    for (const Transfer& t : p.transfers) {
      routes.push_back(route(t.src, t.dst));
      alpha = std::max(alpha, routes.back().latency_s);
    }
    const std::vector<double> finish = finish_times(routes, p.transfers);
    const double beta = finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
    c.latency_s += p.repeat * alpha;
    c.transfer_s += p.repeat * beta;
    c.steps += p.repeat;
  }
  return c;
}

CollectiveCost CollectiveModel::point_to_point(int src, int dst, double bytes) const {
  Schedule s{"p2p", {}};
  if (src != dst && bytes > 0) s.phases.push_back(Phase{{Transfer{src, dst, bytes}}, 1});
  return run(s);
}

CollectiveCost CollectiveModel::collective(CollectiveKind kind, const std::vector<int>& group, double bytes) const {
  for (const int g : group) topo_.gpu(g);  // range check with a clear error
  if (kind == CollectiveKind::kAllToAll) return run(all_to_all_schedule(group, bytes));
  std::vector<CollectiveCost> options;
  switch (kind) {
    case CollectiveKind::kReduceScatter: options.push_back(run(reduce_scatter_schedule(group, bytes))); break;
    case CollectiveKind::kAllGather: options.push_back(run(all_gather_schedule(group, bytes))); break;
    default:
      options.push_back(run(ring_all_reduce_schedule(group, bytes)));
      options.push_back(run(tree_all_reduce_schedule(group, bytes)));
  }
  // Hierarchical when the group spans systems with the same count in each.
  std::map<int, std::vector<int>> by_system;
  for (const int g : group) by_system[topo_.system_of_gpu(g)].push_back(g);
  if (by_system.size() > 1) {
    std::vector<std::vector<int>> parts;
    parts.reserve(by_system.size());
    for (auto& [sys, members] : by_system) parts.push_back(members);
    const bool even = std::all_of(parts.begin(), parts.end(),
                                  [&](const auto& m) { return m.size() == parts.front().size(); });
    if (even) {
      options.push_back(run(kind == CollectiveKind::kReduceScatter ? hierarchical_reduce_scatter_schedule(parts, bytes)
                            : kind == CollectiveKind::kAllGather   ? hierarchical_all_gather_schedule(parts, bytes)
                                                                   : hierarchical_all_reduce_schedule(parts, bytes)));
    }
  }
  // Strictly cheaper wins, so ties keep the first (ring) for stable output.
  CollectiveCost best = options.front();
  for (const auto& o : options) {
    if (o.total_s() < best.total_s()) best = o;
  }
  return best;
}

std::vector<double> AnalyticalCollectiveModel::finish_times(const std::vector<Route>& routes,
                                                            const std::vector<Transfer>& transfers) const {
  std::map<int, double> load;
  for (std::size_t i = 0; i < routes.size(); ++i) {
    for (const int l : routes[i].links) load[l] += transfers[i].bytes;
  }
  std::vector<double> out(routes.size(), 0.0);
  for (std::size_t i = 0; i < routes.size(); ++i) {
    for (const int l : routes[i].links) out[i] = std::max(out[i], load[l] / topo_.link_bw_Bps(l));
  }
  return out;
}

std::vector<double> FlowCollectiveModel::finish_times(const std::vector<Route>& routes,
                                                      const std::vector<Transfer>& transfers) const {
  std::vector<Flow> flows;
  for (std::size_t i = 0; i < routes.size(); ++i) flows.push_back(Flow{routes[i].links, transfers[i].bytes});
  std::vector<double> bw(static_cast<std::size_t>(topo_.links()));
  for (int l = 0; l < topo_.links(); ++l) bw[static_cast<std::size_t>(l)] = topo_.link_bw_Bps(l);
  return max_min_fair_completion(flows, bw);
}

}  // namespace agentsim::hw
