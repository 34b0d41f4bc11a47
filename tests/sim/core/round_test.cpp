// core::llround against std::llround (the libm call it replaces on hot paths): the same
// result on halves, near-halves, negatives, large values and a seeded random sweep.
#include "sim/core/round.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace agentsim::core {
namespace {

TEST(Round, MatchesStdLlroundEverywhere) {
  std::vector<double> xs = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                            1e-300, 4503599627370495.5, 4503599627370496.0, -4503599627370495.5, 9.2e18, -9.2e18};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e7, 1e7);
  for (int i = 0; i < 100000; ++i) {
    const double x = u(rng);
    xs.push_back(x);
    xs.push_back(std::nextafter(std::floor(x) + 0.5, 0.0));  // just below a half
    xs.push_back(std::floor(x) + 0.5);
  }
  for (double x : xs) EXPECT_EQ(core::llround(x), std::llround(x)) << x;
}

}  // namespace
}  // namespace agentsim::core
