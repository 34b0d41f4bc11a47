// A context limit on a replayed trace: turns over it drop their oldest turns as a
// harness does (the prefix breaks after the first prompt, later turns carry the drop),
// block links stay consistent; tool delays replayed as recorded, scaled or drawn.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/source_root.hpp"
#include "workloads/sessions/context_limit.hpp"
#include "workloads/sessions/session_generator.hpp"
#include "workloads/sessions/tool_delay.hpp"
#include "workloads/sessions/trace_formats.hpp"
#include "workloads/sessions/trace_stats.hpp"

namespace agentsim::wl {
namespace {

using test_support::kTrace;

// Every prompt's block list is as long as its tokens say and every link resolves.
void expect_consistent(const Trace& t) {
  for (std::size_t si = 0; si < t.sessions.size(); ++si) {
    for (std::size_t k = 0; k < t.sessions[si].turns.size(); ++k) {
      const TurnRef ref{static_cast<std::int32_t>(si), static_cast<std::int32_t>(k)};
      const auto ids = t.block_ids(ref);  // throws on a link past its parent
      ASSERT_EQ(ids.size(), t.prompt_blocks(ref));
      ASSERT_LE(static_cast<long long>(ids.size()) * t.block_size_tokens, t.sessions[si].turns[k].input_tokens)
          << t.sessions[si].id << " turn " << k;
    }
  }
}

// One session growing by 1,000 tokens (answer 100 + tool result 900) a turn from a 2,000-token
// first prompt: turn k asks 2,000 + 1,000 k tokens.
Trace growing_session(int turns) {
  GeneratorConfig c;
  c.turns = {static_cast<double>(turns), static_cast<double>(turns)};
  c.initial_context_tokens = {2000, 2000};
  c.growth_tokens = {900, 900};
  c.output_tokens = {100, 100};
  c.human_gap_fraction = 0;
  c.tool_gap_s = {2, 2};
  c.block_size_tokens = 10;
  return generate_sessions(c, 1, 1);
}

TEST(ContextLimit, DropsTheOldestTurnsAndCarriesTheDrop) {
  Trace t = growing_session(20);
  ASSERT_EQ(t.sessions[0].turns[10].input_tokens, 12000);
  // Limit 10,000 tokens, half kept: turn 8 (10,000 + 100 > 10,000) becomes 5,000 tokens,
  // the first prompt (2,000 <= 2,500) kept; turns 9..12 carry the 5,000 dropped tokens
  // (6,000 .. 9,000); turn 13 (10,000) overflows again.
  const long long n = apply_context_limit(t, 10000, 0.5);
  const auto& turns = t.sessions[0].turns;
  EXPECT_EQ(turns[7].input_tokens, 9000);
  EXPECT_FALSE(turns[7].truncated);
  EXPECT_EQ(turns[8].input_tokens, 5000);
  EXPECT_TRUE(turns[8].truncated);
  EXPECT_TRUE(turns[8].prefix_break);
  EXPECT_EQ(turns[8].prefix_blocks, 200) << "the cached prefix ends with the first prompt";
  EXPECT_EQ(turns[9].input_tokens, 6000);
  EXPECT_FALSE(turns[9].truncated);
  EXPECT_EQ(turns[9].prefix_blocks, 500) << "a carried turn shares the whole truncated prompt";
  EXPECT_EQ(turns[12].input_tokens, 9000);
  EXPECT_TRUE(turns[13].truncated);
  EXPECT_EQ(turns[13].input_tokens, 5000);
  for (const auto& x : turns) EXPECT_LE(x.input_tokens + x.output_tokens, 10000);
  EXPECT_EQ(n, 3);  // turns 8, 13, 18
  expect_consistent(t);
  EXPECT_EQ(compute_stats(t).truncated, 3);
  // The head blocks still hit: turn 8 shares its first 200 blocks with turn 7.
  const auto a = t.block_ids({0, 7}), b = t.block_ids({0, 8});
  EXPECT_TRUE(std::equal(b.begin(), b.begin() + 200, a.begin()));
  EXPECT_NE(a[200], b[200]) << "after the first prompt the prefix breaks";
}

TEST(ContextLimit, NoTurnOverTheLimitLeavesTheTraceAlone) {
  Trace t = growing_session(5);
  const Trace before = t;
  EXPECT_EQ(apply_context_limit(t, 100000, 0.5), 0);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(t.sessions[0].turns[k].input_tokens, before.sessions[0].turns[k].input_tokens);
    EXPECT_EQ(t.block_ids({0, static_cast<std::int32_t>(k)}), before.block_ids({0, static_cast<std::int32_t>(k)}));
  }
}

TEST(ContextLimit, ClaudeCodeSampleAt131KStaysConsistentWithSubAgents) {
  Trace t = load_trace("claude-code-csv", kTrace);
  const TraceStats before = compute_stats(t);
  ASSERT_GT(before.input.max, 131072);
  const long long n = apply_context_limit(t, 131072, 0.5);
  const TraceStats after = compute_stats(t);
  EXPECT_GT(n, 0);
  EXPECT_EQ(after.truncated, n);
  EXPECT_LE(after.input.max, 131072);
  EXPECT_LT(after.input.mean, before.input.mean);
  EXPECT_EQ(after.turns, before.turns);
  EXPECT_LT(after.hit_in_session, before.hit_in_session) << "each truncation breaks a prefix";
  expect_consistent(t);
  EXPECT_GT(shortest_prompt_tokens(t), 0);
}

TEST(ToolDelay, RecordedScaledAndDrawn) {
  const Trace base = growing_session(50);
  Trace scaled = base, drawn = base, again = base;
  apply_tool_delay(scaled, ToolDelay{ToolDelay::Kind::kScaled, 0.5, {}}, 1);
  const ToolDelay lognormal{ToolDelay::Kind::kDrawn, 1, LogNormalSpec{1.0, 3.0}};
  apply_tool_delay(drawn, lognormal, 7);
  apply_tool_delay(again, lognormal, 7);
  std::vector<double> gaps;
  for (std::size_t k = 0; k + 1 < base.sessions[0].turns.size(); ++k) {
    EXPECT_DOUBLE_EQ(scaled.sessions[0].turns[k].gap_after_s, 1.0);  // 2 s recorded x 0.5
    EXPECT_EQ(drawn.sessions[0].turns[k].gap_after_s, again.sessions[0].turns[k].gap_after_s);
    gaps.push_back(drawn.sessions[0].turns[k].gap_after_s);
  }
  EXPECT_EQ(drawn.sessions[0].turns.back().gap_after_s, 0) << "no gap after the last turn";
  const Distribution d = distribution_of(gaps);
  EXPECT_GT(d.max / d.min, 3) << "drawn delays spread";
}

}  // namespace
}  // namespace agentsim::wl
