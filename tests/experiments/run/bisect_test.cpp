#include "experiments/run/bisect.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

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

// Interpolated probes on a linear margin (root 1234 between 1024 and 2048) close a 2% bracket in a
// few probes; a margin with its root at the bottom edge falls back to halving and still closes.
TEST(Bisect, InterpolatedNarrowingClosesInAFewProbes) {
  int calls = 0;
  auto linear = [&](long long x) {
    ++calls;
    return (1234.0 - static_cast<double>(x)) / 1234.0;
  };
  const long long good = narrow_bracket_interpolated(1024, linear(1024), 2048, linear(2048), 0.02, linear);
  calls -= 2;
  EXPECT_LE(good, 1234);
  EXPECT_GE(good, 1234 - static_cast<long long>(0.02 * 1234));
  EXPECT_LE(calls, 3);
  int steps = 0;
  auto step = [&](long long x) {
    ++steps;
    return x <= 1030 ? 1.0 : -100.0;  // a cliff: interpolation aims far too low
  };
  const long long cliff = narrow_bracket_interpolated(1024, 1.0, 2048, -100.0, 0.02, step);
  EXPECT_LE(cliff, 1030);
  EXPECT_GE(cliff, 1030 - 20);
  EXPECT_LE(steps, 12);
  // A noisy margin (sign flipping with parity near the root) is cut off after max_probes probes,
  // with the bracket still a valid one: good met the target, everything returned was probed.
  int noisy = 0;
  auto flip = [&](long long x) {
    ++noisy;
    return x < 1500 && x % 2 == 0 ? 1.0 : -1.0;
  };
  const long long capped = narrow_bracket_interpolated(1024, 1.0, 2048, -1.0, 0.0, flip, 4);
  EXPECT_EQ(noisy, 4);
  EXPECT_TRUE(capped == 1024 || (capped < 1500 && capped % 2 == 0)) << capped;
}

// narrow_bracket_interpolated over [lo, hi] of `margin`: the final good and the levels probed.
template <class F>
std::pair<long long, std::vector<long long>> narrowed(long long lo, long long hi, F margin, double fraction,
                                                      int max_probes) {
  std::vector<long long> probed;
  const long long good = narrow_bracket_interpolated(lo, margin(lo), hi, margin(hi), fraction, [&](long long x) {
    probed.push_back(x);
    return margin(x);
  }, max_probes);
  return {good, probed};
}

// A bent margin, shaped like the default experiment's H200 60 tok/s SLO tier (seed 42): p10 speed
// well above the tier at the ladder's lower level, then a long shoulder just below it, so every
// interpolated probe lands on the failing side of the root. With three probes the bracket must
// still move off its lower end: two failing probes in a row send the third to the midpoint.
TEST(Bisect, InterpolatedNarrowingMovesOffABentMarginsLowerEnd) {
  auto bent = [](long long x) {  // 0.62 at 256, root at 420, -0.04 at 440, -0.15 at 512
    const double v = static_cast<double>(x);
    return v <= 420 ? 0.62 * (420 - v) / 164 : v <= 440 ? -0.04 * (v - 420) / 20 : -0.04 - 0.11 * (v - 440) / 72;
  };
  const auto [good, probed] = narrowed(256, 512, bent, 0.05, 3);
  ASSERT_EQ(probed.size(), 3u);
  EXPECT_LT(bent(probed[0]), 0);
  EXPECT_LT(bent(probed[1]), 0);
  EXPECT_EQ(probed[2], 256 + (probed[1] - 256) / 2) << "the third probe is the midpoint";
  EXPECT_EQ(good, probed[2]);
  EXPECT_GE(good, 340) << "three interpolated probes on the failing side left the read-off at the ladder's 256";
}

// A root next to the failing end, shaped like the default experiment's gb300-nvl72 60 tok/s SLO
// tier on 4x(dp=16,ep=16): the log margin is 0.49 at 8,192 agents, crosses at 14,700 and is -0.0134
// at 14,785 and -0.10 at 16,384. The first probe (14,791) fails just past the root; the second
// interpolates to just above it, and one agent below a failing probe would fail again. It stays a
// tolerance inside the bracket instead, meets the target, and closes it.
TEST(Bisect, InterpolatedProbesStayAToleranceInsideTheBracket) {
  auto margin = [](long long x) {
    const double v = static_cast<double>(x);
    return v <= 14700 ? 0.49 * (14700 - v) / 6508 : v <= 14785 ? -0.0134 * (v - 14700) / 85
                                                               : -0.0134 - 0.0866 * (v - 14785) / 1599;
  };
  const auto [good, probed] = narrowed(8192, 16384, margin, 0.05, 3);
  ASSERT_GE(probed.size(), 2u);
  EXPECT_LT(margin(probed[0]), 0) << probed[0];
  EXPECT_LE(probed[1], probed[0] - static_cast<long long>(0.05 * 8192)) << "a probe beside the failing end";
  EXPECT_GE(good, probed[0] - static_cast<long long>(0.05 * static_cast<double>(good))) << "not closed";
  EXPECT_EQ(probed.size(), 2u);
}

}  // namespace
}  // namespace agentsim::exp
