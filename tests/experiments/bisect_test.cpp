#include "experiments/bisect.hpp"

#include <gtest/gtest.h>

namespace agentsim::exp {
namespace {

TEST(Bisect, FindsTheLastTrueWithFewCalls) {
  int calls = 0;
  const long long got = bisect_max_true(1, 100000, [&](long long x) {
    ++calls;
    return x <= 4321;
  });
  EXPECT_EQ(got, 4321);
  EXPECT_LE(calls, 20);
}

TEST(Bisect, EdgeCases) {
  EXPECT_EQ(bisect_max_true(1, 10, [](long long) { return true; }), 10);
  EXPECT_EQ(bisect_max_true(1, 10, [](long long) { return false; }), 0);
  EXPECT_EQ(bisect_max_true(5, 5, [](long long x) { return x == 5; }), 5);
}

}  // namespace
}  // namespace agentsim::exp
