#include "experiments/run/rank_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/core/error.hpp"

namespace agentsim::exp {

std::vector<double> descending_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] > v[b]; });
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mean;
    i = j + 1;
  }
  return rank;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw core::Error("spearman: samples of different sizes");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.size() < 2) return nan;
  const std::vector<double> rx = descending_ranks(x), ry = descending_ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx <= 0 || syy <= 0) return nan;
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace agentsim::exp
