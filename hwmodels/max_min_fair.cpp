#include "hwmodels/max_min_fair.hpp"

#include <algorithm>
#include <limits>

namespace agentsim::hw {

std::vector<double> max_min_fair_completion(const std::vector<Flow>& flows,
                                            const std::vector<double>& link_bw_Bps) {
  const std::size_t n = flows.size();
  std::vector<double> done(n, 0.0);
  std::vector<double> left(n, 0.0);
  std::vector<std::size_t> active;
  for (std::size_t i = 0; i < n; ++i) {
    left[i] = flows[i].bytes;
    if (flows[i].bytes > 0 && !flows[i].links.empty()) active.push_back(i);
  }
  std::vector<double> cap(link_bw_Bps.size());
  std::vector<int> users(link_bw_Bps.size());
  std::vector<double> rate(n, 0.0);
  double now = 0;
  while (!active.empty()) {
    // Water-filling: repeatedly saturate the link with the smallest fair share.
    std::fill(users.begin(), users.end(), 0);
    for (const std::size_t f : active) {
      for (const int l : flows[f].links) {
        const auto li = static_cast<std::size_t>(l);
        cap[li] = link_bw_Bps[li];
        ++users[li];
      }
    }
    std::vector<bool> fixed(n, false);
    std::size_t unfixed = active.size();
    while (unfixed > 0) {
      double share = std::numeric_limits<double>::infinity();
      for (const std::size_t f : active) {
        if (fixed[f]) continue;
        for (const int l : flows[f].links) {
          const auto li = static_cast<std::size_t>(l);
          share = std::min(share, cap[li] / users[li]);
        }
      }
      std::vector<std::size_t> freeze;
      for (const std::size_t f : active) {
        if (fixed[f]) continue;
        for (const int l : flows[f].links) {
          const auto li = static_cast<std::size_t>(l);
          if (cap[li] / users[li] <= share * (1 + 1e-12)) {
            freeze.push_back(f);
            break;
          }
        }
      }
      for (const std::size_t f : freeze) {
        fixed[f] = true;
        rate[f] = share;
        --unfixed;
        for (const int l : flows[f].links) {
          const auto li = static_cast<std::size_t>(l);
          cap[li] = std::max(0.0, cap[li] - share);
          --users[li];
        }
      }
    }
    double dt = std::numeric_limits<double>::infinity();
    for (const std::size_t f : active) dt = std::min(dt, left[f] / rate[f]);
    now += dt;
    std::vector<std::size_t> still;
    for (const std::size_t f : active) {
      left[f] -= rate[f] * dt;
      if (left[f] <= flows[f].bytes * 1e-12) {
        done[f] = now;
      } else {
        still.push_back(f);
      }
    }
    active.swap(still);
  }
  return done;
}

}  // namespace agentsim::hw
