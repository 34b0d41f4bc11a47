#include "workloads/model/moe_expectation.hpp"

#include <cmath>

namespace agentsim::wl {

double expected_distinct_experts(int experts, int top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  const double e = experts;
  // A given expert is missed by one token with probability 1 - k/E.
  return e * (1.0 - std::pow(1.0 - top_k / e, tokens));
}

}  // namespace agentsim::wl
