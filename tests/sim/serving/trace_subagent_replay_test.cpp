// Sub-agents in closed-loop and Poisson replay: a child starts when the parent
// turn it follows finishes; the parent's next turn waits for its own gap and for
// every non-async child; async children run alongside. Timings are derived by
// hand over a sink whose service time is input_tokens / 100 s.
#include <gtest/gtest.h>

#include <map>

#include "sim/core/simulator.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/poisson_session_driver.hpp"
#include "workloads/sessions/trace_formats.hpp"

namespace agentsim::serving {
namespace {

struct Sent {
  int session, turn, agent;
  double submit_s, done_s;
};

// Finishes each request after input_tokens / tokens_per_s seconds, whatever else runs.
class FixedRateSink : public RequestSink {
 public:
  FixedRateSink(core::Simulator& sim, double tokens_per_s) : sim_(sim), rate_(tokens_per_s) {}
  void submit(const Request& r, CompletionFn done) override {
    const double latency_s = static_cast<double>(r.input_tokens) / rate_;
    const std::size_t i = sent.size();
    sent.push_back(Sent{r.turn.session, r.turn.turn, r.agent, sim_.now_s(), sim_.now_s() + latency_s});
    sim_.after(core::to_ticks(latency_s), [done = std::move(done), i, this] {
      metrics::RequestRecord rec;
      rec.agent = sent[i].agent;
      done(rec);
    });
  }
  std::vector<Sent> sent;

 private:
  core::Simulator& sim_;
  double rate_;
};

wl::Session session(const std::string& id, std::vector<std::pair<long long, double>> in_gap, int parent = -1,
                    int after = -1, bool async = false) {
  wl::Session s;
  s.id = id;
  for (const auto& [in, gap] : in_gap) s.turns.emplace_back(in, 1, gap);
  s.spawn = wl::SpawnLink{parent, after, async};
  return s;
}

// P (root): 3 turns of 1 s, gaps 2 s then 1 s. A: sync child after P's turn 0, turns of
// 3 s (gap 1 s) and 2 s. B: async child after P's turn 0, one 10 s turn. C: sync child
// after P's last turn, one 0.5 s turn. D: sync grandchild after A's turn 0, one 4 s turn.
wl::Trace hand_trace() {
  wl::Trace t;
  t.name = "hand";
  t.sessions.push_back(session("P", {{100, 2.0}, {100, 1.0}, {100, 0.0}}));
  t.sessions.push_back(session("P/A", {{300, 1.0}, {200, 0.0}}, 0, 0));
  t.sessions.push_back(session("P/B", {{1000, 0.0}}, 0, 0, true));
  t.sessions.push_back(session("P/C", {{50, 0.0}}, 0, 2));
  t.sessions.push_back(session("P/A/D", {{400, 0.0}}, 1, 0));
  for (std::size_t i = 0; i < t.sessions.size(); ++i) t.sessions[i].root = 0;
  return t;
}

// Hand timeline from the first submission (offset 0):
//   P0 0-1. At 1: A0 1-4 and B0 1-11 start (B async). P's gap ends at 3 but A is running.
//   At 4: A0 done, D0 4-8 starts; A's gap ends at 5, A1 waits for D: A1 8-10; A finishes at 10.
//   P1 at 10 (max(gap end 3, A done 10)), 10-11; gap 1 -> P2 12-13; C0 at 13, 13-13.5.
//   P finishes at 13.5 (with C); B finished at 11 without holding anything up.
const std::vector<std::tuple<int, int, double, double>> kExpected = {
    {0, 0, 0.0, 1.0}, {1, 0, 1.0, 4.0}, {2, 0, 1.0, 11.0}, {4, 0, 4.0, 8.0},
    {1, 1, 8.0, 10.0}, {0, 1, 10.0, 11.0}, {0, 2, 12.0, 13.0}, {3, 0, 13.0, 13.5}};

void expect_timeline(const std::vector<Sent>& sent, double offset_s) {
  ASSERT_EQ(sent.size(), kExpected.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto& [s, k, submit, done] = kExpected[i];
    EXPECT_EQ(sent[i].session, s) << i;
    EXPECT_EQ(sent[i].turn, k) << i;
    EXPECT_NEAR(sent[i].submit_s - offset_s, submit, 1e-6) << i;
    EXPECT_NEAR(sent[i].done_s - offset_s, done, 1e-6) << i;
  }
}

TEST(SubagentReplay, ClosedLoopHandTimeline) {
  const wl::Trace trace = hand_trace();
  core::Simulator sim;
  FixedRateSink sink(sim, 100.0);
  ClosedLoopOptions co;
  co.agents = 1;
  ClosedLoopDriver d(sim, sink, trace, co);
  d.start();
  sim.run_until(core::to_ticks(13.4));
  expect_timeline(sink.sent, 0.0);
  for (const auto& s : sink.sent) EXPECT_EQ(s.agent, 0) << "sub-agents run under their root's agent";
  // The one root session is the whole pool: the agent starts it again when C finished at 13.5.
  sim.run_until(core::to_ticks(13.6));
  ASSERT_EQ(sink.sent.size(), kExpected.size() + 1);
  EXPECT_EQ(sink.sent.back().session, 0);
  EXPECT_NEAR(sink.sent.back().submit_s, 13.5, 1e-6);
  EXPECT_EQ(d.sessions_started(), 6) << "P, A, B, D, C, then P again";
}

TEST(SubagentReplay, ClosedLoopAgentsCountRootSessions) {
  const wl::Trace trace = hand_trace();
  core::Simulator sim;
  FixedRateSink sink(sim, 100.0);
  ClosedLoopOptions co;
  co.agents = 3;
  ClosedLoopDriver d(sim, sink, trace, co);
  d.start();
  sim.run_until(core::to_ticks(0.5));
  // Three agents, three copies of the only root P's first turn; no child is a pool entry.
  ASSERT_EQ(sink.sent.size(), 3u);
  for (const auto& s : sink.sent) EXPECT_EQ(s.session, 0);
}

TEST(SubagentReplay, PoissonHandTimeline) {
  const wl::Trace trace = hand_trace();
  core::Simulator sim;
  FixedRateSink sink(sim, 100.0);
  PoissonSessionDriver d(sim, sink, trace, PoissonOptions{0.01, 3, 0, GapCaps{}});
  d.start();
  sim.run_until(core::to_ticks(5000.0));
  ASSERT_GT(d.sessions_started(), 1);
  std::vector<Sent> first;  // the first arrival's tree (agent 0)
  for (const auto& s : sink.sent) {
    if (s.agent == 0) first.push_back(s);
  }
  ASSERT_FALSE(first.empty());
  expect_timeline(first, first.front().submit_s);
}

// Replaying raw trace_0291 (a root with two sync Explore sub-agents after turn 15):
// every child turn runs after root turn 15 finished and before root turn 16 is sent.
TEST(SubagentReplay, RawClaudeCodeTraceFinishesChildrenBeforeTheParentContinues) {
  const wl::Trace trace = wl::load_trace(
      "claude-code-json", std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code-raw-sample/trace_0291.json");
  ASSERT_EQ(trace.sessions.size(), 3u);
  core::Simulator sim;
  FixedRateSink sink(sim, 20000.0);  // 1 s per 20k prompt tokens
  ClosedLoopOptions co;
  co.agents = 1;
  co.gap_caps.human_s = 5.0;
  ClosedLoopDriver d(sim, sink, trace, co);
  d.start();
  sim.run_while([&] { return d.sessions_started() <= 3; });  // until the tree restarts
  std::map<std::pair<int, int>, Sent> by_turn;
  for (const auto& s : sink.sent) by_turn.emplace(std::make_pair(s.session, s.turn), s);
  ASSERT_EQ(by_turn.size(), 20u + 5u + 7u) << "every turn of the root and both children ran";
  const double parent_done = by_turn.at({0, 15}).done_s;
  const double parent_next = by_turn.at({0, 16}).submit_s;
  for (int child = 1; child <= 2; ++child) {
    EXPECT_EQ(trace.sessions[static_cast<std::size_t>(child)].spawn.after_turn, 15);
    EXPECT_NEAR(by_turn.at({child, 0}).submit_s, parent_done, 1e-6) << "starts when the parent turn finishes";
    const int last = static_cast<int>(trace.sessions[static_cast<std::size_t>(child)].turns.size()) - 1;
    EXPECT_LE(by_turn.at({child, last}).done_s, parent_next) << "finishes before the parent continues";
  }
  // Root turn 16 follows the later of its own gap and the slower child.
  const double child_end = std::max(by_turn.at({1, 4}).done_s, by_turn.at({2, 6}).done_s);
  EXPECT_NEAR(parent_next, std::max(child_end, parent_done + trace.sessions[0].turns[15].gap_after_s), 1e-6);
}

}  // namespace
}  // namespace agentsim::serving
