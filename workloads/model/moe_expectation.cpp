#include "workloads/model/moe_expectation.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace agentsim::wl {

namespace {

// E[max of `count` independent standard normals] = integral of x count phi(x) Phi(x)^(count-1)
// (midpoint rule, step 0.005 over [-9, 9]).
double integrate_max_std_normal(int count) {
  if (count <= 1) return 0;
  const double step = 5e-3, inv_sqrt_2pi = 0.3989422804014327;
  double sum = 0;
  for (int i = 0; i < 3600; ++i) {
    const double x = -9 + (i + 0.5) * step;
    const double phi = inv_sqrt_2pi * std::exp(-0.5 * x * x);
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    sum += x * count * phi * std::pow(cdf, count - 1) * step;
  }
  return sum;
}

// Tabled once (thread-safe static initialisation) for the expert-parallel group sizes in use.
double expected_max_std_normal(int count) {
  constexpr int kTabled = 256;
  static const std::array<double, kTabled + 1> table = [] {
    std::array<double, kTabled + 1> t{};
    for (int c = 0; c <= kTabled; ++c) t[static_cast<std::size_t>(c)] = integrate_max_std_normal(c);
    return t;
  }();
  return count <= kTabled ? table[static_cast<std::size_t>(std::max(0, count))] : integrate_max_std_normal(count);
}

}  // namespace

double expected_distinct_experts(int experts, int top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  const double e = experts;
  // A given expert is missed by one token with probability 1 - k/E.
  return e * (1.0 - std::pow(1.0 - top_k / e, tokens));
}

double expected_max_binomial(double trials, double p, int count) {
  if (trials <= 0 || p <= 0) return 0;
  if (p >= 1) return trials;
  const double mean = trials * p;
  if (count <= 1) return mean;
  // E[max] = sum over x >= 0 of P(max > x) = sum of 1 - F(x)^count; the pmf by recursion
  // from P(0) = (1 - p)^n in log space (P(0) underflows for large n p).
  const int n = static_cast<int>(std::lround(trials));
  const double log_q = std::log1p(-p), log_ratio = std::log(p) - log_q;
  double log_pmf = n * log_q, cdf = 0, sum = 0;
  for (int x = 0; x < n; ++x) {
    cdf = std::min(1.0, cdf + std::exp(log_pmf));
    const double tail = 1.0 - std::pow(cdf, count);
    if (tail < 1e-15 && static_cast<double>(x) > mean) break;
    sum += tail;
    log_pmf += std::log(static_cast<double>(n - x) / (x + 1)) + log_ratio;
  }
  return sum;
}

double expected_max_poisson(double mean, int count) {
  if (mean <= 0) return 0;
  if (count <= 1) return mean;
  const double sd = std::sqrt(mean);
  if (mean > 1024) return mean + expected_max_std_normal(count) * sd;
  // The same sum over a band of +-14 sd around the mean: below it P(max > x) = 1 to double
  // precision (each term 1), above it 0.
  const int lo = static_cast<int>(std::max(0.0, std::floor(mean - 14 * sd)));
  const int hi = static_cast<int>(std::ceil(mean + 14 * sd)) + 30;
  double log_pmf = lo * std::log(mean) - mean - std::lgamma(lo + 1.0), cdf = 0, sum = lo;
  for (int x = lo; x < hi; ++x) {
    cdf = std::min(1.0, cdf + std::exp(log_pmf));
    sum += 1.0 - std::pow(cdf, count);
    log_pmf += std::log(mean / (x + 1));
  }
  return sum;
}

double expected_busiest_rank_experts(int experts, int top_k, double tokens, int ranks, int redundant) {
  if (ranks <= 1) return expected_distinct_experts(experts, top_k, tokens);
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  const double e = experts;
  const int r = std::max(0, redundant);
  const int slots = (experts + r + ranks - 1) / ranks;
  // P(a given slot is touched): its expert's tokens shared over E/(E + R)'s worth of copies.
  const double share = r > 0 ? e / (e + r) : 1.0;
  const double touched = 1.0 - std::pow(1.0 - top_k / e, tokens * share);
  return expected_max_binomial(slots, touched, ranks);
}

double expected_busiest_rank_assignments(int top_k, double tokens, int ranks) {
  if (top_k <= 0 || tokens <= 0) return 0;
  if (ranks <= 1) return top_k * tokens;
  return expected_max_poisson(top_k * tokens / ranks, ranks);
}

double expected_busiest_rank_skew(int experts, int ranks, int redundant, double load_cv, double balanced_cv) {
  if (ranks <= 1 || experts <= 0 || !(load_cv > 0)) return 1.0;
  const double z = expected_max_std_normal(ranks);
  if (redundant > 0) return 1.0 + z * std::max(0.0, balanced_cv);
  const double per_rank = static_cast<double>(experts) / ranks;
  const double s2 = std::log1p(load_cv * load_cv / per_rank);
  return std::max(1.0, std::exp(std::sqrt(s2) * z - s2 / 2));
}

}  // namespace agentsim::wl
