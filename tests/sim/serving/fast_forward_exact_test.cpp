// Fast-forward against exact stepping over long decode stretches: the reference prices
// every step with the StepCoster; fast-forward prices a decode-only segment from affine
// pieces checked against that pricing (decode_segment.hpp). The stretches cross a kink
// of the step cost (an op changes bound), where the old two-point extrapolation drifts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "experiments/catalog.hpp"
#include "sim/serving/decode_segment.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/serving/step_coster.hpp"

namespace agentsim::serving {
namespace {

struct Case {
  const char* model;
  const char* system;
  int tp;
  int batch;               // decoding sequences
  long long context;       // context of sequence 0 at the first step
  long long spread;        // sequence i starts at context + i x spread
  long long steps;         // decode steps of the stretch
};

// Each stretch takes some op across a change of bound (checked below).
const Case kCases[] = {
    {"llama-3.1-70b", "hgx-h100", 8, 4, 1000, 300, 6000},   // dense GQA
    {"gpt-oss-120b", "hgx-b200", 2, 16, 200, 50, 4000},     // MoE, sliding-window layers
    {"deepseek-r1", "mi355x-8", 8, 8, 500, 100, 5000},      // MLA MoE
};

StepCostOptions cost_options(int tp) { return StepCostOptions{tp, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3}; }

StepBatch decodes(const Case& c, long long step) {
  StepBatch b;
  for (int i = 0; i < c.batch; ++i) b.decodes.push_back(DecodeItem{c.context + i * c.spread + step});
  return b;
}

struct FastForwardExact : ::testing::Test {
  exp::Catalog catalog = exp::load_catalog(AGENTSIM_SOURCE_DIR);
};

// Some op of the first step is bound by something else at the last step.
bool some_op_changes_bound(const Case& c, const wl::ModelSpec& m, const hw::System& s) {
  const StepCost a = step_cost(decodes(c, 0), m, s, cost_options(c.tp));
  const StepCost b = step_cost(decodes(c, c.steps - 1), m, s, cost_options(c.tp));
  bool changed = false;
  for (std::size_t i = 0; i < a.breakdown.ops.size() && i < b.breakdown.ops.size(); ++i) {
    const OpCost& x = a.breakdown.ops[i];
    const OpCost& y = b.breakdown.ops[i];
    if (x.layer_kind == y.layer_kind && x.op == y.op && x.bound != y.bound) {
      std::printf("  %s %s: %s -> %s\n", x.layer_kind.c_str(), x.op.c_str(), std::string(to_string(x.bound)).c_str(),
                  std::string(to_string(y.bound)).c_str());
      changed = true;
    }
  }
  return changed;
}

// Step by step, the planned segment equals exact pricing to the nanosecond tick, while
// the two-point extrapolation (first step + slope of the first two) does not.
TEST_F(FastForwardExact, SegmentPlanEqualsExactPricingOfEveryStep) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.model) + " on " + c.system);
    const wl::ModelSpec& m = catalog.models.get(c.model);
    const hw::System& s = catalog.systems.get(c.system);
    std::printf("%s on %s, %d sequences from context %lld, %lld steps\n", c.model, c.system, c.batch, c.context,
                c.steps);
    ASSERT_TRUE(some_op_changes_bound(c, m, s)) << "the stretch must cross a kink";

    const StepCoster coster(m, s, cost_options(c.tp));
    DecodeSegment seg;
    seg.plan(coster, decodes(c, 0), c.steps);
    ASSERT_EQ(seg.steps(), c.steps);
    core::Ticks exact = 0;
    long long mismatches = 0;
    for (long long j = 0; j < c.steps; ++j) {
      const core::Ticks t = core::to_ticks(coster.totals(decodes(c, j)).total_s);
      exact += t;
      mismatches += seg.step_ticks(j) != t ? 1 : 0;
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(seg.run_ticks(0, c.steps), exact);
    EXPECT_GT(seg.pieces(), 1u) << "the kink splits the stretch";
    EXPECT_LT(seg.evaluations(), c.steps / 10) << "far fewer prices than steps";

    // The old model: step i lasts A + B i ticks from the first two steps.
    const core::Ticks a = core::to_ticks(coster.totals(decodes(c, 0)).total_s);
    const core::Ticks b = core::to_ticks(coster.totals(decodes(c, 1)).total_s) - a;
    const core::Ticks two_point = c.steps * a + b * (c.steps * (c.steps - 1) / 2);
    const double rel = std::abs(static_cast<double>(two_point - exact)) / static_cast<double>(exact);
    std::printf("  stretch %.6f s, %zu pieces, %lld prices; two-point extrapolation off by %.3g (relative)\n",
                core::to_seconds(exact), seg.pieces(), seg.evaluations(), rel);
    EXPECT_GT(rel, 1e-6) << "the reference catches the two-point extrapolation";
  }
}

// Whole replicas: sequences with staggered contexts and answer lengths (one segment per
// completion), a late arrival cutting a run and a measurement-window barrier. Every
// request finishes at the same tick with and without fast-forward, and stepping is the
// exact sum of step prices.
TEST_F(FastForwardExact, ReplicaFastForwardEqualsExactSteppingRequestByRequest) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.model) + " on " + c.system);
    const wl::ModelSpec& m = catalog.models.get(c.model);
    const hw::System& s = catalog.systems.get(c.system);
    auto run = [&](bool fast_forward, bool late, unsigned long long& events) {
      core::Simulator sim;
      metrics::Recorder rec;
      ReplicaOptions o;
      o.cost = cost_options(c.tp);
      o.max_sequences = 256;
      o.kv_capacity_tokens = 4'000'000;
      o.fast_forward = fast_forward;
      o.barriers_s = {2.0};
      Replica replica(sim, m, s, o, rec);
      std::vector<metrics::RequestRecord> done;
      auto submit = [&](int i) {
        Request r;
        r.agent = i;
        r.input_tokens = c.context + i * c.spread;
        r.output_tokens = c.steps + 1 - 37LL * (c.batch - 1 - i % c.batch);  // the last ones run longest
        metrics::RequestRecord first;
        first.agent = i;
        first.input_tokens = r.input_tokens;
        first.output_tokens = r.output_tokens;
        first.arrival_s = sim.now_s();
        first.first_token_s = sim.now_s();
        replica.submit_prefilled(r, first, [&done](const metrics::RequestRecord& x) { done.push_back(x); });
      };
      for (int i = 0; i < c.batch; ++i) submit(i);
      if (late) sim.at(core::to_ticks(1.234567), [&] { submit(c.batch); });  // cuts the run in flight
      sim.run_until(core::to_ticks(1e4));
      events = sim.events_run();
      return done;
    };
    for (bool late : {false, true}) {
      unsigned long long ev_step = 0, ev_ff = 0;
      const auto stepped = run(false, late, ev_step);
      const auto ff = run(true, late, ev_ff);
      ASSERT_EQ(stepped.size(), static_cast<std::size_t>(c.batch + (late ? 1 : 0)));
      ASSERT_EQ(ff.size(), stepped.size());
      for (std::size_t i = 0; i < ff.size(); ++i) {
        EXPECT_EQ(ff[i].agent, stepped[i].agent);
        EXPECT_EQ(ff[i].last_token_s, stepped[i].last_token_s) << "request " << stepped[i].agent;
      }
      EXPECT_LT(ev_ff * 20, ev_step) << "fast-forward runs far fewer events";
      std::printf("%s%s: %zu requests, last at %.6f s; events %llu stepping, %llu fast-forward\n", c.model,
                  late ? " (late arrival)" : "", ff.size(), stepped.back().last_token_s, ev_step, ev_ff);
      if (late) continue;
      // Sequence 0 finishes first, every sequence decoding until then: at the exact sum
      // of its step prices.
      const StepCoster coster(m, s, cost_options(c.tp));
      core::Ticks t = 0;
      for (long long j = 0; j < c.steps - 37LL * (c.batch - 1); ++j) {
        t += core::to_ticks(coster.totals(decodes(c, j)).total_s);
      }
      EXPECT_EQ(stepped.front().agent, 0);
      EXPECT_EQ(stepped.front().last_token_s, core::to_seconds(t));
    }
  }
}

}  // namespace
}  // namespace agentsim::serving
