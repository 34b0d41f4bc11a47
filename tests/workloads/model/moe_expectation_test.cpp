#include "workloads/model/moe_expectation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::wl {
namespace {

TEST(MoeExpectation, ClosedFormEdges) {
  EXPECT_DOUBLE_EQ(expected_distinct_experts(256, 8, 1), 8.0);  // one token: exactly k
  EXPECT_DOUBLE_EQ(expected_distinct_experts(256, 8, 0), 0.0);
  EXPECT_NEAR(expected_distinct_experts(256, 8, 1e6), 256.0, 1e-9);
  // Two tokens: 256 x (1 - (1 - 8/256)^2) = 256 x 0.0615234375 = 15.75.
  EXPECT_DOUBLE_EQ(expected_distinct_experts(256, 8, 2), 15.75);
}

TEST(MoeExpectation, MatchesMonteCarlo) {
  core::RngStream rng(7, "tests/moe_expectation");
  const int experts = 256, k = 8;
  for (int tokens : {4, 32, 128}) {
    const int trials = 2000;
    double sum = 0;
    std::vector<int> ids(experts);
    for (int t = 0; t < trials; ++t) {
      std::vector<char> hit(experts, 0);
      for (int tok = 0; tok < tokens; ++tok) {
        std::iota(ids.begin(), ids.end(), 0);
        for (int j = 0; j < k; ++j) {  // partial Fisher-Yates: k distinct experts
          const auto r = static_cast<size_t>(j) + rng.uniform_index(static_cast<std::uint64_t>(experts - j));
          std::swap(ids[static_cast<size_t>(j)], ids[r]);
          hit[static_cast<size_t>(ids[static_cast<size_t>(j)])] = 1;
        }
      }
      sum += static_cast<double>(std::count(hit.begin(), hit.end(), 1));
    }
    EXPECT_NEAR(sum / trials, expected_distinct_experts(experts, k, tokens), 0.5) << tokens;  // standard error of the mean is < 0.1;
  }
}

}  // namespace
}  // namespace agentsim::wl
