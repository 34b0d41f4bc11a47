// Speculative tokens, emitted: each decoding sequence drafts k tokens, accepts a prefix
// drawn from its own stream (position i with p_i once the earlier ones were accepted)
// and emits accepted + 1 at the step's end. The mean emitted per step is 1 + sum_i prod_{j<=i} p_j,
// and a lone agent's speed scales by tokens per step over the (dearer) verify step's time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/spec_decode.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/serving/step_coster.hpp"

namespace agentsim::serving {
namespace {

SpecDecodeOptions spec_of(std::vector<double> p) {
  SpecDecodeOptions s;
  s.draft_tokens = static_cast<int>(p.size());
  s.acceptance = std::move(p);
  return s;
}

struct Speculative : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-8b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  ReplicaOptions options(const SpecDecodeOptions& spec) const {
    ReplicaOptions o;
    o.cost = StepCostOptions{1, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
    o.cost.spec = spec;
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, 1, 0.9);
    o.kv.unit_tokens = 64;
    o.seed = 7;
    return o;
  }
  struct Alone {
    metrics::RequestRecord rec;
    std::vector<metrics::StepRecord> steps;
  };
  // One request of `input` prompt and `output` answer tokens alone on a replica.
  Alone alone(const ReplicaOptions& o, long long input, long long output) const {
    core::Simulator sim;
    metrics::Recorder rec;
    Replica replica(sim, model, system, o, rec);
    Request q;
    q.agent = 0;
    q.input_tokens = input;
    q.output_tokens = output;
    Alone a;
    replica.submit(q, [&](const metrics::RequestRecord& r) { a.rec = r; });
    sim.run_until(core::to_ticks(1e5));
    a.steps = rec.steps();
    return a;
  }
};

// The draw alone: 1 + accepted over 100,000 steps of one stream.
TEST_F(Speculative, DrawnTokensPerStepMatchTheAcceptanceChain) {
  const SpecDecodeOptions s = spec_of({0.8, 0.6, 0.4});
  EXPECT_DOUBLE_EQ(s.expected_tokens_per_step(), 1 + 0.8 + 0.8 * 0.6 + 0.8 * 0.6 * 0.4);  // 2.472
  core::RngStream rng(11, "spec");
  long long emitted = 0;
  const long long steps = 100'000;
  for (long long i = 0; i < steps; ++i) emitted += 1 + draw_accepted(rng, s);
  EXPECT_NEAR(static_cast<double>(emitted) / steps, 2.472, 0.01 * 2.472);
  // Certain and impossible drafts.
  core::RngStream r2(1, "spec");
  EXPECT_EQ(draw_accepted(r2, spec_of({1.0, 1.0})), 2);
  EXPECT_EQ(draw_accepted(r2, spec_of({0.0, 1.0})), 0);
}

// Through the replica: a 30,000-token answer takes >= 10,000 decode steps; the tokens each
// emits (the step record's sampled tokens) average 1 + sum prod p within 1%, its KV grows
// by as many (the context the next step prices) and every answer token is emitted once.
TEST_F(Speculative, ReplicaEmitsAcceptedPlusOneTokensPerStep) {
  const SpecDecodeOptions s = spec_of({0.8, 0.6, 0.4});
  const long long output = 30'000;
  const Alone a = alone(options(s), 1000, output);
  ASSERT_FALSE(a.rec.rejected);
  long long decode_steps = 0, decoded = 0, all = 0;
  for (const metrics::StepRecord& st : a.steps) {
    all += static_cast<long long>(st.sampled_tokens) * st.steps;
    if (st.prefill_tokens > 0) continue;
    EXPECT_EQ(st.decode_tokens, 4) << "one sequence verifies k + 1 = 4 tokens";
    EXPECT_GE(st.sampled_tokens, 1);
    EXPECT_LE(st.sampled_tokens, 4);
    decode_steps += st.steps;
    decoded += static_cast<long long>(st.sampled_tokens) * st.steps;
  }
  EXPECT_EQ(all, output) << "every answer token emitted once";
  EXPECT_EQ(decoded, output - 1) << "the first token comes with the prompt";
  ASSERT_GE(decode_steps, 10'000);
  const double mean = static_cast<double>(decoded) / static_cast<double>(decode_steps);
  std::printf("mean emitted per decode step over %lld steps: %.4f (expected %.4f)\n", decode_steps, mean,
              s.expected_tokens_per_step());
  EXPECT_NEAR(mean, s.expected_tokens_per_step(), 0.01 * s.expected_tokens_per_step());
}

// A lone agent's speed with speculation over its speed without equals
// (tokens per step / mean step time on) / (1 / mean step time off), the step times
// priced independently by a StepCoster over the contexts the answer passes through.
TEST_F(Speculative, SingleAgentSpeedScalesByTokensPerStepOverStepTime) {
  const SpecDecodeOptions s = spec_of({0.8, 0.6, 0.4});
  const long long input = 1000, output = 30'000;
  const Alone off = alone(options({}), input, output);
  const Alone on = alone(options(s), input, output);
  auto speed = [&](const metrics::RequestRecord& r) {
    return static_cast<double>(output - 1) / (r.last_token_s - r.first_token_s);
  };
  // Mean decode step time over the contexts [input + 1, input + output): every one is
  // visited without speculation; with it the visited ones are spread evenly over the range.
  auto mean_step_s = [&](const SpecDecodeOptions& spec) {
    StepCostOptions o = options(spec).cost;
    const StepCoster coster(model, system, o);
    StepBatch b;
    b.decodes.resize(1);
    double sum = 0;
    long long n = 0;
    for (long long c = input + 1; c < input + output; c += 7, ++n) {
      b.decodes[0].context_tokens = c;
      sum += coster.price(b).total_s;
    }
    return sum / static_cast<double>(n);
  };
  const double t_off = mean_step_s({}), t_on = mean_step_s(s);
  EXPECT_GT(t_on, t_off) << "verifying 4 tokens and drafting 3 cost more than one decode";
  const double expected = (s.expected_tokens_per_step() / t_on) / (1.0 / t_off);
  const double measured = speed(on.rec) / speed(off.rec);
  std::printf("speed off %.1f tok/s, on %.1f tok/s: ratio %.4f, expected %.4f (step %.3f -> %.3f ms)\n",
              speed(off.rec), speed(on.rec), measured, expected, t_off * 1e3, t_on * 1e3);
  EXPECT_NEAR(measured, expected, 0.015 * expected);
  EXPECT_GT(measured, 1.5);
}

// The draws follow the request, not the batch: a request decoded alone or beside
// another emits the same tokens per step (its step count is unchanged).
TEST_F(Speculative, DrawsDoNotDependOnBatchComposition) {
  const ReplicaOptions o = options(spec_of({0.9, 0.7, 0.5}));
  auto steps_of_agent0 = [&](bool with_other) {
    core::Simulator sim;
    metrics::Recorder rec;
    Replica replica(sim, model, system, o, rec);
    Request q;
    q.agent = 0;
    q.input_tokens = 500;
    q.output_tokens = 2000;
    double last = 0;
    replica.submit(q, [&](const metrics::RequestRecord& r) { last = r.last_token_s; });
    if (with_other) {
      Request other = q;
      other.agent = 1;
      other.output_tokens = 4000;
      replica.submit(other, [](const metrics::RequestRecord&) {});
    }
    sim.run_until(core::to_ticks(1e4));
    long long steps = 0;
    for (const metrics::StepRecord& st : rec.steps()) {
      if (st.end_s <= last) steps += st.steps;
    }
    return steps;
  };
  EXPECT_EQ(steps_of_agent0(false), steps_of_agent0(true));
}

// The verify step runs the k + 1 tokens of each decoding sequence through every layer: a
// phase-asymmetric model's decode-only layers (prompt tokens skip them) run them too, so
// verifying one draft never costs less than decoding one token.
TEST_F(Speculative, VerificationRunsTheDecodeOnlyLayers) {
  const wl::ModelSpec& m = catalog.models.get("deepseek-v4.1-flash");
  ASSERT_GT(m.phase.prefill_layers, 0);
  ASSERT_LT(m.phase.prefill_layers, m.layers);
  StepCostOptions o{8, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
  StepBatch b;
  b.decodes = {DecodeItem{20000}, DecodeItem{3000}};
  const StepCost plain = step_cost(b, m, system, o);
  o.spec = spec_of({0.0});
  const StepCost spec = step_cost(b, m, system, o);
  EXPECT_GT(spec.flops, 1.9 * plain.flops) << "two tokens per sequence through every layer";
  EXPECT_GT(spec.total_s - spec.breakdown.draft_s, plain.total_s - plain.breakdown.draft_s);
  EXPECT_EQ(StepCoster(m, system, o).price(b).total_s, spec.total_s) << "the hot path prices it alike";
}

// A dataset's acceptance length rescales the card's per-position acceptance by one factor.
// Hand values: card [0.9, 0.5]: 1 + 0.9 + 0.45 = 2.35 tokens per step; for 1.5 tokens per
// step, s (0.9 + 0.45 s) = 0.5 gives s = 0.4611…, acceptance [0.415, 0.2306].
TEST(SpecAcceptanceLength, ScalesTheCardToTheTargetTokensPerStep) {
  const SpecDecodeOptions card = spec_of({0.9, 0.5});
  EXPECT_NEAR(card.expected_tokens_per_step(), 2.35, 1e-12);
  const SpecDecodeOptions half = with_tokens_per_step(card, 1.5);
  const double s = (-0.9 + std::sqrt(0.81 + 4 * 0.45 * 0.5)) / (2 * 0.45);
  ASSERT_EQ(half.acceptance.size(), 2u);
  EXPECT_NEAR(half.acceptance[0], 0.9 * s, 1e-9);
  EXPECT_NEAR(half.acceptance[1], 0.5 * s, 1e-9);
  EXPECT_NEAR(half.expected_tokens_per_step(), 1.5, 1e-9);
  EXPECT_EQ(half.draft_tokens, 2);  // still drafts (and pays for) two tokens
  // The card's own length leaves it unchanged; 1 accepts nothing; above 1 + k clamps to every draft.
  const SpecDecodeOptions same = with_tokens_per_step(card, 2.35);
  EXPECT_NEAR(same.acceptance[0], 0.9, 1e-9);
  EXPECT_NEAR(same.acceptance[1], 0.5, 1e-9);
  EXPECT_EQ(with_tokens_per_step(card, 1.0).expected_tokens_per_step(), 1.0);
  EXPECT_NEAR(with_tokens_per_step(card, 9.0).expected_tokens_per_step(), 3.0, 1e-9);
}

// A server launched with fewer draft tokens than the drafter has drafts its first positions:
// card [0.9, 0.5, 0.3] at k = 1 emits 1 + 0.9 tokens a step and verifies two per sequence.
TEST(SpecFirstDrafts, KeepsTheDrafterFirstPositions) {
  const SpecDecodeOptions card = spec_of({0.9, 0.5, 0.3});
  const SpecDecodeOptions one = first_drafts(card, 1);
  EXPECT_EQ(one.draft_tokens, 1);
  ASSERT_EQ(one.acceptance.size(), 1u);
  EXPECT_NEAR(one.expected_tokens_per_step(), 1.9, 1e-12);
  EXPECT_NEAR(first_drafts(card, 2).expected_tokens_per_step(), 1 + 0.9 + 0.45, 1e-12);
  EXPECT_NO_THROW(check_spec_decode(first_drafts(card, 2)));
  // k at or above the drafter's own, or 0 (not stated): the drafter as it is.
  EXPECT_EQ(first_drafts(card, 3).acceptance, card.acceptance);
  EXPECT_EQ(first_drafts(card, 5).draft_tokens, 3);
  EXPECT_EQ(first_drafts(card, 0).draft_tokens, 3);
}

// A draft schedule (TensorRT-LLM's draft_len_schedule, vLLM's speculative_disable_by_batch_size):
// {2: 1, 4: 0} on a 3-draft card runs 3 drafts with one sequence running, 1 with two or three,
// none from four.
TEST(SpecSchedule, SetsTheDraftsByRunningSequences) {
  SpecDecodeOptions card = spec_of({0.9, 0.5, 0.3});
  card.schedule = {{2, 1}, {4, 0}};
  EXPECT_NO_THROW(check_spec_decode(card));
  EXPECT_EQ(card.drafts_for(1), 3);
  EXPECT_EQ(card.drafts_for(2), 1);
  EXPECT_EQ(card.drafts_for(3), 1);
  EXPECT_EQ(card.drafts_for(4), 0);
  EXPECT_EQ(card.drafts_for(1000), 0);
  // The drafter at a draft count: its first positions, off at 0, without the schedule.
  EXPECT_NEAR(with_drafts(card, 1).expected_tokens_per_step(), 1.9, 1e-12);
  EXPECT_EQ(with_drafts(card, 3).draft_tokens, 3);
  EXPECT_TRUE(with_drafts(card, 3).schedule.empty());
  EXPECT_FALSE(with_drafts(card, 0).enabled());
  EXPECT_EQ(with_drafts(card, 0).expected_tokens_per_step(), 1.0);
  SpecDecodeOptions bad = card;
  bad.schedule = {{4, 1}, {2, 0}};
  EXPECT_THROW(check_spec_decode(bad), core::Error) << "thresholds must ascend";
  bad.schedule = {{2, 4}};
  EXPECT_THROW(check_spec_decode(bad), core::Error) << "more drafts than the drafter has";
}

// Through the replica: with speculation off from 4 running sequences, a batch of eight
// verifies one token per sequence and emits one, while a lone request keeps drafting.
TEST_F(Speculative, ScheduleTurnsSpeculationOffAtLoad) {
  SpecDecodeOptions s = spec_of({0.9, 0.7, 0.5});
  s.schedule = {{4, 0}};
  // `requests` equal requests (500-token prompts, 400-token answers) at once on a replica of `o`.
  auto run = [&](const ReplicaOptions& o, int requests) {
    core::Simulator sim;
    metrics::Recorder rec;
    Replica replica(sim, model, system, o, rec);
    for (int i = 0; i < requests; ++i) {
      Request q;
      q.agent = i;
      q.input_tokens = 500;
      q.output_tokens = 400;
      replica.submit(q, [](const metrics::RequestRecord&) {});
    }
    sim.run_until(core::to_ticks(1e4));
    return rec.steps();
  };
  const ReplicaOptions o = options(s);
  long long busy_decode_steps = 0;
  for (const metrics::StepRecord& st : run(o, 8)) {
    if (st.prefill_tokens > 0 || st.batch_sequences < 4) continue;
    EXPECT_EQ(st.decode_tokens, st.batch_sequences) << "no drafts with 4 or more running";
    EXPECT_EQ(st.sampled_tokens, st.batch_sequences);
    busy_decode_steps += st.steps;
  }
  EXPECT_GT(busy_decode_steps, 300);
  long long lone_steps = 0, lone_tokens = 0;
  for (const metrics::StepRecord& st : run(o, 1)) {
    if (st.prefill_tokens > 0) continue;
    EXPECT_EQ(st.decode_tokens, 4) << "one sequence running: all 3 drafts verified";
    lone_steps += st.steps;
    lone_tokens += static_cast<long long>(st.sampled_tokens) * st.steps;
  }
  ASSERT_GT(lone_steps, 0);
  EXPECT_GT(static_cast<double>(lone_tokens) / static_cast<double>(lone_steps), 1.5);
  // Eight equal requests run together from their prefill to their last token, so with the
  // schedule every decode step is the drafter-less step: priced, timed and counted as a replica
  // without speculation runs it.
  const auto with_schedule = run(o, 8);
  const auto without = run(options({}), 8);
  ASSERT_EQ(with_schedule.size(), without.size());
  for (std::size_t i = 0; i < without.size(); ++i) {
    EXPECT_EQ(with_schedule[i].end_s, without[i].end_s) << "step " << i;
    EXPECT_EQ(with_schedule[i].sampled_tokens, without[i].sampled_tokens) << "step " << i;
  }
}

}  // namespace
}  // namespace agentsim::serving
