// The fitted generator reproduces the medians and p90s of the trace it was
// fitted to (the shipped Claude Code sample) within 10%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "workloads/sessions/generator_fit.hpp"
#include "workloads/sessions/trace_formats.hpp"

namespace agentsim::wl {
namespace {

const std::string kSample = std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code-sample/requests.csv";

double rel_err(double got, double want) { return std::abs(got - want) / want; }

void expect_close(const char* what, const Distribution& got, const Distribution& want) {
  std::printf("fit %-16s p50 %10.1f vs %10.1f (%+5.1f%%)  p90 %10.1f vs %10.1f (%+5.1f%%)\n", what, got.p50, want.p50,
              100 * (got.p50 - want.p50) / want.p50, got.p90, want.p90, 100 * (got.p90 - want.p90) / want.p90);
  EXPECT_LT(rel_err(got.p50, want.p50), 0.10) << what << " median";
  EXPECT_LT(rel_err(got.p90, want.p90), 0.10) << what << " p90";
}

TEST(TraceGenerator, FittedGeneratorMatchesMediansAndP90sWithinTenPercent) {
  const Trace trace = load_trace("claude-code-csv", kSample);
  const GeneratorTargets want = measure_targets(trace);
  const GeneratorConfig cfg = fit_generator(trace);
  const Trace gen = generate_sessions(cfg, 10000, 7);
  const GeneratorTargets got = measure_targets(gen);
  expect_close("turns/session", got.turns, want.turns);
  expect_close("initial context", got.initial_context, want.initial_context);
  expect_close("growth/turn", got.growth, want.growth);
  expect_close("output/turn", got.output, want.output);
  expect_close("tool gap", got.tool_gap, want.tool_gap);
  expect_close("human gap", got.human_gap, want.human_gap);
  EXPECT_NEAR(got.human_gap_fraction, want.human_gap_fraction, 0.01);
  EXPECT_NEAR(got.compaction_probability, want.compaction_probability, 0.01);
}

TEST(TraceGenerator, DeterministicPerSeedAndSharesTheSystemPrompt) {
  GeneratorConfig cfg;
  cfg.shared_system_prompt_tokens = 6400;  // 100 blocks of 64 tokens
  cfg.turns = {5, 10};
  const Trace a = generate_sessions(cfg, 50, 3);
  const Trace b = generate_sessions(cfg, 50, 3);
  const Trace c = generate_sessions(cfg, 50, 4);
  ASSERT_EQ(a.turn_count(), b.turn_count());
  for (std::size_t s = 0; s < a.sessions.size(); ++s) {
    for (std::size_t k = 0; k < a.sessions[s].turns.size(); ++k) {
      EXPECT_EQ(a.sessions[s].turns[k].input_tokens, b.sessions[s].turns[k].input_tokens);
    }
  }
  EXPECT_NE(a.sessions[0].turns[0].input_tokens, c.sessions[0].turns[0].input_tokens);
  // Session 1's first prompt links to session 0's first prompt for the 100 shared blocks.
  EXPECT_EQ(a.sessions[1].turns[0].prefix_parent, (TurnRef{0, 0}));
  EXPECT_EQ(a.sessions[1].turns[0].prefix_blocks, 100);
  const TraceStats st = compute_stats(a);
  EXPECT_GT(st.hit_global, st.hit_in_session) << "the shared system prompt only hits across sessions";
}

TEST(TraceGenerator, LogNormalHitsItsQuantiles) {
  // z = sqrt(-2 ln(1 - u1)) cos(2 pi u2); u1 = 1 - e^-0.5 gives sqrt(1) = 1 and u2 = 0 gives cos 0 = 1,
  // so z = 1 and the draw is median * (p90 / median)^(1 / 1.28155) = 100 * 4^0.78030 = 295.0.
  const double x = sample_lognormal(LogNormalSpec{100, 400}, 1 - std::exp(-0.5), 0.0);
  EXPECT_NEAR(x, 100 * std::pow(4.0, 1 / 1.2815515655446004), 1e-9);
  EXPECT_NEAR(sample_lognormal(LogNormalSpec{100, 400}, 1 - std::exp(-0.5), 0.25), 100, 1e-9);  // cos = 0
}

}  // namespace
}  // namespace agentsim::wl
