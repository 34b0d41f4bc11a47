// Replay modes over a small hand-made pool: closed loop is deterministic per
// seed, human gaps can be capped, open loop submits at recorded times, and
// Poisson arrivals are deterministic per seed.
#include <gtest/gtest.h>

#include <map>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/open_loop_driver.hpp"
#include "sim/serving/poisson_session_driver.hpp"
#include "workloads/sessions/trace_formats.hpp"

namespace agentsim::serving {
namespace {

struct Replay : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-70b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  const wl::Trace pool_trace =
      wl::load_trace("", std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code-sample/requests.csv");
  const wl::Trace& trace() const { return pool_trace; }
  long long cache_unit_tokens = 1;  // 64 (the trace's block): prefix caching on
  ReplicaOptions options() const {
    ReplicaOptions o;
    o.cost = StepCostOptions{8, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, 8, 0.9);
    o.kv.unit_tokens = cache_unit_tokens;
    return o;
  }
  // A closed loop over `pool` on one replica, simulated until `until_s`.
  struct Outcome {
    long long sessions;
    std::vector<metrics::RequestRecord> requests;
    double finished_at_s;
  };
  Outcome run_closed(const wl::Trace& pool, const ClosedLoopOptions& co, double until_s) const {
    core::Simulator sim;
    metrics::Recorder rec;
    Replica replica(sim, model, system, options(), rec);
    ClosedLoopDriver d(sim, replica, pool, co);
    d.start();
    sim.run_until(core::to_ticks(until_s));
    return Outcome{d.sessions_started(), rec.requests(), d.finished_at_s()};
  }
  std::vector<metrics::RequestRecord> closed(std::uint64_t seed, bool random_start) const {
    ClosedLoopOptions co;
    co.agents = 8;
    co.seed = seed;
    co.max_context_tokens = model.max_context;
    co.random_start = random_start;
    return run_closed(trace(), co, 120.0).requests;
  }
};

bool same(const std::vector<metrics::RequestRecord>& a, const std::vector<metrics::RequestRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].agent != b[i].agent || a[i].input_tokens != b[i].input_tokens || a[i].last_token_s != b[i].last_token_s) {
      return false;
    }
  }
  return true;
}

TEST_F(Replay, ClosedLoopIsDeterministicPerSeed) {
  const auto a = closed(5, true);
  const auto b = closed(5, true);
  const auto c = closed(6, true);
  ASSERT_GT(a.size(), 8u);
  EXPECT_TRUE(same(a, b)) << "same seed, same records";
  EXPECT_FALSE(same(a, c)) << "another seed picks other sessions";
  EXPECT_FALSE(same(a, closed(5, false))) << "random start points change the first prompts";
}

// An agent started mid-session (random_start) begins in the steady state: its first prompt finds
// its previous prompt cached (Request::warm_prefix_tokens), as its earlier turns, not replayed,
// would have left it; started at a session's first turn, nothing is cached (Claude Code's block
// ids are per conversation, so no other agent's prompt matches).
TEST_F(Replay, RandomStartBeginsWithThePreviousPromptCached) {
  cache_unit_tokens = 64;
  for (const bool random_start : {true, false}) {
    const auto records = closed(5, random_start);
    std::map<int, const metrics::RequestRecord*> first;
    for (const auto& r : records) {
      auto [it, fresh] = first.try_emplace(r.agent, &r);
      if (!fresh && r.arrival_s < it->second->arrival_s) it->second = &r;
    }
    ASSERT_EQ(first.size(), 8u);
    int warm = 0;
    for (const auto& [agent, r] : first) {
      if (r->cached_tokens > 0) ++warm;
      if (random_start && r->cached_tokens > 0) {
        EXPECT_GT(r->cached_tokens, r->input_tokens / 2) << "agent " << agent << ": most of a later turn's prompt";
      }
    }
    if (random_start) {
      EXPECT_GE(warm, 2) << "agents started past a turn that extends the one before";
    } else {
      EXPECT_EQ(warm, 0);
    }
  }
}

// A finite run (session_limit): exactly that many root sessions begin, each agent stops when none
// are left, and the simulation runs out of events once the last answer is done.
TEST_F(Replay, ClosedLoopWithASessionLimitBeginsThatManySessionsAndDrains) {
  wl::Trace pool;
  pool.sessions.resize(5);
  for (auto& s : pool.sessions) s.turns.push_back(wl::Turn(2000, 50, 0.0));
  auto run = [&](long long limit, double until_s) {
    ClosedLoopOptions co;
    co.agents = 3;
    co.session_limit = limit;
    return run_closed(pool, co, until_s);
  };
  const Outcome seven = run(7, 3600);  // more than the pool: sessions reused in order, 7 begun in all
  EXPECT_EQ(seven.sessions, 7);
  ASSERT_EQ(seven.requests.size(), 7u);
  double last = 0;
  for (const auto& r : seven.requests) last = std::max(last, r.last_token_s);
  EXPECT_LT(last, 60.0) << "seven 50-token answers on three agents drain in seconds";
  EXPECT_EQ(seven.finished_at_s, last) << "the run finishes with its last answer";
  const Outcome two = run(2, 3600);  // fewer sessions than agents: only that many agents send
  EXPECT_EQ(two.requests.size(), 2u);
  EXPECT_GT(two.finished_at_s, 0.0);
  const Outcome cycling = run(0, 60);  // without a limit the loop never finishes
  EXPECT_LT(cycling.finished_at_s, 0.0);
  EXPECT_GT(cycling.requests.size(), 7u);
}

TEST(ReplayGap, EachKindHasItsOwnCap) {
  wl::Turn human(10, 1, 300.0);
  human.gap_kind = wl::GapKind::kHuman;
  wl::Turn tool(10, 1, 300.0);
  tool.gap_kind = wl::GapKind::kTool;
  EXPECT_DOUBLE_EQ(replay_gap_s(human, {5.0, -1}), 5.0);
  EXPECT_DOUBLE_EQ(replay_gap_s(human, {-1.0, -1}), 300.0);
  EXPECT_DOUBLE_EQ(replay_gap_s(tool, {5.0, -1}), 300.0) << "a human cap leaves tool gaps alone";
  EXPECT_DOUBLE_EQ(replay_gap_s(tool, {5.0, 60.0}), 60.0);
  EXPECT_DOUBLE_EQ(replay_gap_s(human, {-1.0, 60.0}), 300.0) << "a tool cap leaves human gaps alone";
  wl::Turn none(10, 1, 0.0);
  EXPECT_DOUBLE_EQ(replay_gap_s(none, {5.0, 5.0}), 0.0);
}

TEST_F(Replay, OpenLoopSubmitsAtRecordedTimesScaled) {
  std::vector<wl::Session> timed(3);
  for (int i = 0; i < 3; ++i) {
    timed[static_cast<std::size_t>(i)].turns.push_back(wl::Turn(100, 2, 0.0));
    timed[static_cast<std::size_t>(i)].turns.back().t_s = 0;
    timed[static_cast<std::size_t>(i)].start_s = 10.0 * i;  // arrivals at 0, 10, 20 s
  }
  core::Simulator sim;
  metrics::Recorder rec;
  Replica replica(sim, model, system, options(), rec);
  wl::Trace timed_trace;
  timed_trace.sessions = timed;
  OpenLoopDriver d(sim, replica, timed_trace, OpenLoopOptions{0.5, 0});  // x0.5: 0, 5, 10 s
  d.start();
  sim.run_until(core::to_ticks(60.0));
  ASSERT_EQ(rec.requests().size(), 3u);
  EXPECT_DOUBLE_EQ(rec.requests()[0].arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(rec.requests()[1].arrival_s, 5.0);
  EXPECT_DOUBLE_EQ(rec.requests()[2].arrival_s, 10.0);
}

TEST_F(Replay, PoissonArrivalsAreDeterministicAndNearTheRate) {
  auto run = [&](std::uint64_t seed) {
    core::Simulator sim;
    metrics::Recorder rec;
    Replica replica(sim, model, system, options(), rec);
    PoissonSessionDriver d(sim, replica, trace(), PoissonOptions{0.5, seed, model.max_context, {10.0}});
    d.start();
    sim.run_until(core::to_ticks(400.0));
    return std::make_pair(d.sessions_started(), rec.requests());
  };
  const auto [n1, r1] = run(9);
  const auto [n2, r2] = run(9);
  EXPECT_EQ(n1, n2);
  EXPECT_TRUE(same(r1, r2));
  // 0.5 sessions/s over 400 s: 200 expected, sd sqrt(200) = 14; +-5 sd.
  EXPECT_NEAR(static_cast<double>(n1), 200.0, 71.0);
}

}  // namespace
}  // namespace agentsim::serving
