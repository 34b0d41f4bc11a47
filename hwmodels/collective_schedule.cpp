#include "hwmodels/collective_schedule.hpp"

#include "sim/core/error.hpp"

namespace agentsim::hw {
namespace {

std::size_t at(std::size_t i, std::size_t n) { return i % n; }

Phase ring_phase(const std::vector<int>& group, double chunk, int repeat) {
  Phase p;
  p.repeat = repeat;
  const std::size_t n = group.size();
  for (std::size_t i = 0; i < n; ++i) p.transfers.push_back(Transfer{group[i], group[at(i + 1, n)], chunk});
  return p;
}

}  // namespace

Schedule ring_all_reduce_schedule(const std::vector<int>& group, double bytes) {
  Schedule s{"ring", {}};
  const int n = static_cast<int>(group.size());
  if (n > 1 && bytes > 0) s.phases.push_back(ring_phase(group, bytes / n, 2 * (n - 1)));
  return s;
}

Schedule tree_all_reduce_schedule(const std::vector<int>& group, double bytes) {
  Schedule s{"tree", {}};
  const std::size_t n = group.size();
  if (n <= 1 || bytes <= 0) return s;
  int depth = 0;
  while ((std::size_t{1} << (depth + 1)) - 1 < n) ++depth;  // deepest level holding a node
  std::vector<Phase> up;
  for (int d = depth; d >= 1; --d) {
    Phase p;
    const std::size_t first = (std::size_t{1} << d) - 1;
    const std::size_t last = std::min(n, (std::size_t{1} << (d + 1)) - 1);
    for (std::size_t i = first; i < last; ++i) p.transfers.push_back(Transfer{group[i], group[(i - 1) / 2], bytes});
    up.push_back(p);
  }
  for (const Phase& p : up) s.phases.push_back(p);
  for (auto it = up.rbegin(); it != up.rend(); ++it) {
    Phase down;
    for (const Transfer& t : it->transfers) down.transfers.push_back(Transfer{t.dst, t.src, t.bytes});
    s.phases.push_back(down);
  }
  return s;
}

Schedule reduce_scatter_schedule(const std::vector<int>& group, double bytes) {
  Schedule s{"ring", {}};
  const int n = static_cast<int>(group.size());
  if (n > 1 && bytes > 0) s.phases.push_back(ring_phase(group, bytes / n, n - 1));
  return s;
}

Schedule all_gather_schedule(const std::vector<int>& group, double bytes) {
  Schedule s = reduce_scatter_schedule(group, bytes);
  return s;
}

Schedule all_to_all_schedule(const std::vector<int>& group, double bytes) {
  Schedule s{"direct", {}};
  const std::size_t n = group.size();
  if (n <= 1 || bytes <= 0) return s;
  Phase p;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j) p.transfers.push_back(Transfer{group[i], group[j], bytes / static_cast<double>(n)});
    }
  }
  s.phases.push_back(std::move(p));
  return s;
}

namespace {

// The two-level schedule over systems of g members each: ring phases inside every system on
// bytes / g (reduce-scatter before, all-gather after) and a ring across the systems between the
// members of the same local rank on bytes / g / systems: `inter_steps` of them.
Schedule hierarchical(const std::vector<std::vector<int>>& by_system, double bytes, bool intra_before,
                      int inter_steps_per_system, bool intra_after) {
  Schedule s{"hierarchical", {}};
  if (by_system.empty() || bytes <= 0) return s;
  const std::size_t g = by_system.front().size();
  for (const auto& members : by_system) {
    if (members.size() != g) throw core::Error("a hierarchical collective needs the same members in every system");
  }
  const std::size_t systems = by_system.size();
  const double gd = static_cast<double>(g);
  auto intra = [&](int repeat) {
    Phase p;
    p.repeat = repeat;
    for (const auto& members : by_system) {
      for (std::size_t i = 0; i < g; ++i) p.transfers.push_back(Transfer{members[i], members[at(i + 1, g)], bytes / gd});
    }
    return p;
  };
  if (g > 1 && intra_before) s.phases.push_back(intra(static_cast<int>(g) - 1));
  if (systems > 1) {
    Phase p;
    p.repeat = inter_steps_per_system * (static_cast<int>(systems) - 1);
    const double chunk = bytes / gd / static_cast<double>(systems);
    for (std::size_t k = 0; k < g; ++k) {
      for (std::size_t si = 0; si < systems; ++si) {
        p.transfers.push_back(Transfer{by_system[si][k], by_system[at(si + 1, systems)][k], chunk});
      }
    }
    s.phases.push_back(std::move(p));
  }
  if (g > 1 && intra_after) s.phases.push_back(intra(static_cast<int>(g) - 1));
  return s;
}

}  // namespace

Schedule hierarchical_all_reduce_schedule(const std::vector<std::vector<int>>& by_system, double bytes) {
  return hierarchical(by_system, bytes, true, 2, true);
}

Schedule hierarchical_reduce_scatter_schedule(const std::vector<std::vector<int>>& by_system, double bytes) {
  return hierarchical(by_system, bytes, true, 1, false);
}

Schedule hierarchical_all_gather_schedule(const std::vector<std::vector<int>>& by_system, double bytes) {
  return hierarchical(by_system, bytes, false, 1, true);  // across the systems first, then inside each
}

}  // namespace agentsim::hw
