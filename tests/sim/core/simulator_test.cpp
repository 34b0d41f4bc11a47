#include "sim/core/simulator.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/core/error.hpp"

namespace agentsim::core {
namespace {

TEST(Simulator, ClockAdvancesToEachEvent) {
  Simulator sim;
  std::vector<Ticks> seen;
  sim.at(100, [&] {
    seen.push_back(sim.now());
    sim.after(50, [&] { seen.push_back(sim.now()); });
  });
  sim.at(120, [&] { seen.push_back(sim.now()); });
  EXPECT_EQ(sim.run_until_idle(), 3u);
  EXPECT_EQ(seen, (std::vector<Ticks>{100, 120, 150}));
}

TEST(Simulator, RunUntilStopsAtTheLimitAndSetsTheClock) {
  Simulator sim;
  int ran = 0;
  sim.at(10, [&] { ++ran; });
  sim.at(20, [&] { ++ran; });
  sim.at(21, [&] { ++ran; });
  EXPECT_EQ(sim.run_until(20), 2u) << "events at exactly the limit run";
  EXPECT_EQ(sim.now(), 20);
  EXPECT_EQ(sim.events_pending(), 1u);
  EXPECT_EQ(sim.run_until(1000), 1u);
  EXPECT_EQ(sim.now(), 1000);
}

TEST(Simulator, RunWhileChecksThePredicateBeforeEachEvent) {
  Simulator sim;
  int ran = 0;
  for (int i = 1; i <= 10; ++i) sim.at(i, [&] { ++ran; });
  sim.run_while([&] { return ran < 4; });
  EXPECT_EQ(ran, 4);
  EXPECT_EQ(sim.now(), 4);
}

TEST(Simulator, StopFromAHandler) {
  Simulator sim;
  int ran = 0;
  sim.at(1, [&] { ++ran; sim.stop(); });
  sim.at(2, [&] { ++ran; });
  sim.run_until_idle();
  EXPECT_EQ(ran, 1);
  sim.run_until_idle();
  EXPECT_EQ(ran, 2);
}

TEST(Simulator, SchedulingInThePastIsAnError) {
  Simulator sim;
  sim.at(10, [] {});
  sim.run_until_idle();
  EXPECT_THROW(sim.at(5, [] {}), Error);
  EXPECT_THROW(sim.after(-1, [] {}), Error);
}

TEST(Simulator, CancelledEventDoesNotAdvanceTheClock) {
  Simulator sim;
  const EventId id = sim.at(500, [] {});
  sim.at(10, [] {});
  EXPECT_TRUE(sim.cancel(id));
  sim.run_until_idle();
  EXPECT_EQ(sim.now(), 10);
}

TEST(Time, SecondsRoundTrip) {
  EXPECT_EQ(to_ticks(1.5e-3), 1'500'000);
  EXPECT_DOUBLE_EQ(to_seconds(to_ticks(2.25)), 2.25);
  EXPECT_EQ(to_ticks(-1.0), 0);
  EXPECT_EQ(to_ticks(1e300), kTickMax);
}

}  // namespace
}  // namespace agentsim::core
