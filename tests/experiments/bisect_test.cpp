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

// A known bracket narrowed to 2%: boundary at 1234 between 1024 (meets) and 2048 (fails).
TEST(Bisect, NarrowBracketStopsWithinTheFraction) {
  int calls = 0;
  const long long good = narrow_bracket(1024, 2048, 0.02, [&](long long x) {
    ++calls;
    return x <= 1234;
  });
  EXPECT_LE(good, 1234);
  EXPECT_GE(good, 1234 - static_cast<long long>(0.02 * 1234));  // within 2% of the boundary
  EXPECT_LE(calls, 6) << "log2(1024 / 20.48) ~ 5.6 probes";
  EXPECT_EQ(narrow_bracket(1024, 2048, 0.0, [](long long x) { return x <= 1234; }), 1234);
  EXPECT_EQ(narrow_bracket(7, 8, 0.02, [](long long) -> bool { throw 1; }), 7) << "already narrow: no probe";
}

}  // namespace
}  // namespace agentsim::exp
