// Fast-forward against exact stepping over long decode stretches: the reference prices
// every step with the StepCoster; fast-forward prices a decode-only segment from affine
// pieces checked against that pricing (decode_segment.hpp). The stretches cross a kink
// of the step cost (an op changes bound), where the old two-point extrapolation drifts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "tests/sim/serving/catalog_fixtures.hpp"
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
  Overlap overlap = Overlap::kNone;
};

// Each stretch takes some op across a change of bound (checked below).
const Case kCases[] = {
    {"llama-3.1-70b", "hgx-h100", 8, 4, 1000, 300, 6000},       // dense GQA
    {"gpt-oss-120b", "hgx-b200", 2, 16, 200, 50, 4000},         // MoE, sliding-window layers
    {"deepseek-r1", "mi355x-8", 8, 8, 500, 100, 5000},          // MLA MoE
    {"deepseek-v3.2", "hgx-b200", 8, 96, 12000, 32, 4000},      // MLA + sparse indexer (floor -> compute)
    {"deepseek-v4.1-flash", "mi355x-8", 8, 256, 100, 4, 3000},  // compressed sparse attention: top-k cap per sequence
    {"gpt-oss-120b", "hgx-h100", 4, 64, 20, 2, 3000, Overlap::kTwoBatch},      // two-batch overlap, crosses the window
    {"qwen3-235b-a22b", "hgx-h100", 8, 8, 200, 50, 4000, Overlap::kCommCompute},  // GQA MoE, comm under compute
};

StepCostOptions cost_options(const Case& c) {
  StepCostOptions o{c.tp, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
  o.overlap = c.overlap;
  return o;
}

// Answer lengths differ by this many tokens from one sequence to the next.
long long stagger(const Case& c) { return std::max(1LL, c.steps / (4LL * c.batch)); }

StepBatch decodes(const Case& c, long long step) {
  StepBatch b;
  for (int i = 0; i < c.batch; ++i) b.decodes.push_back(DecodeItem{c.context + i * c.spread + step});
  return b;
}

struct FastForwardExact : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
};

// Some op of the first step is bound by something else at the last step.
bool some_op_changes_bound(const Case& c, const wl::ModelSpec& m, const hw::System& s) {
  const StepCost a = step_cost(decodes(c, 0), m, s, cost_options(c));
  const StepCost b = step_cost(decodes(c, c.steps - 1), m, s, cost_options(c));
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

// Plans the stretch of `c` into `seg` and checks every step's ticks against exact pricing, the
// stretch split at its kink in fewer prices than steps; returns the exact sum of the step ticks.
core::Ticks expect_plan_equals_exact_pricing(const StepCoster& coster, const Case& c, DecodeSegment& seg) {
  seg.plan(coster, decodes(c, 0), c.steps);
  EXPECT_EQ(seg.steps(), c.steps);
  core::Ticks exact = 0;
  long long mismatches = 0;
  for (long long j = 0; j < c.steps; ++j) {
    const core::Ticks t = core::to_ticks(coster.price(decodes(c, j)).total_s);
    exact += t;
    mismatches += seg.step_ticks(j) != t ? 1 : 0;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(seg.run_ticks(0, c.steps), exact);
  EXPECT_GT(seg.pieces(), 1u) << "the kink splits the stretch";
  // A few prices per kink: ~50 for one kink, ~1000 for 256 sequences each reaching its top-k cap.
  EXPECT_LT(seg.evaluations(), c.steps / 2) << "fewer prices than steps";
  return exact;
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

    const StepCoster coster(m, s, cost_options(c));
    DecodeSegment seg;
    const core::Ticks exact = expect_plan_equals_exact_pricing(coster, c, seg);

    // The old model: step i lasts A + B i ticks from the first two steps.
    const core::Ticks a = core::to_ticks(coster.price(decodes(c, 0)).total_s);
    const core::Ticks b = core::to_ticks(coster.price(decodes(c, 1)).total_s) - a;
    const core::Ticks two_point = c.steps * a + b * (c.steps * (c.steps - 1) / 2);
    const double rel = std::abs(static_cast<double>(two_point - exact)) / static_cast<double>(exact);
    std::printf("  stretch %.6f s, %zu pieces, %lld prices; two-point extrapolation off by %.3g (relative)\n",
                core::to_seconds(exact), seg.pieces(), seg.evaluations(), rel);
    EXPECT_GT(rel, 1e-6) << "the reference catches the two-point extrapolation";
  }
}

// An overlap scheduler's host work exposed while the step is short and hidden once the growing
// contexts make the device time outlast it: the step cost has a kink no op's bound shows, which
// the segment's fast path (AffineProbe::host_hidden) must not step over. Every step's ticks equal
// exact pricing.
TEST_F(FastForwardExact, SegmentPlanIsExactAcrossTheOverlapSchedulersKink) {
  const Case c{"llama-3.1-70b", "hgx-h100", 8, 64, 1000, 10, 6000};
  const wl::ModelSpec& m = catalog.models.get(c.model);
  const hw::System& s = catalog.systems.get(c.system);
  StepCostOptions o = cost_options(c);
  o.step_overhead_s = 0;
  const double first_s = StepCoster(m, s, o).price(decodes(c, 0)).total_s;
  const double last_s = StepCoster(m, s, o).price(decodes(c, c.steps - 1)).total_s;
  ASSERT_LT(first_s * 1.2, last_s) << "the device time must grow along the stretch";
  o.engine.graph_fixed_s = 1e-3;
  o.engine.per_sequence_s = (first_s + last_s) / 2 / c.batch;  // the host work: between the two
  o.engine.overlap_scheduler = true;
  const StepCoster coster(m, s, o);
  EXPECT_GT(step_cost(decodes(c, 0), m, s, o).total_s, first_s + 1e-3) << "exposed at the first step";
  EXPECT_NEAR(step_cost(decodes(c, c.steps - 1), m, s, o).total_s, last_s + 1e-3, 1e-12) << "hidden at the last";
  DecodeSegment seg;
  expect_plan_equals_exact_pricing(coster, c, seg);
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
    auto run = [&](bool fast_forward, bool late, unsigned long long& events, StepParts& parts) {
      core::Simulator sim;
      metrics::Recorder rec;
      ReplicaOptions o;
      o.cost = cost_options(c);
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
        r.output_tokens = c.steps + 1 - stagger(c) * (c.batch - 1 - i % c.batch);  // the last ones run longest
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
      for (const metrics::StepRecord& st : rec.steps()) {  // what energy accounting sums
        parts.compute_s += st.compute_s * st.steps;
        parts.memory_s += st.memory_s * st.steps;
        parts.comm_s += st.comm_s * st.steps;
        parts.overhead_s += st.overhead_s * st.steps;
      }
      return done;
    };
    for (bool late : {false, true}) {
      unsigned long long ev_step = 0, ev_ff = 0;
      StepParts p_step, p_ff;
      const auto stepped = run(false, late, ev_step, p_step);
      const auto ff = run(true, late, ev_ff, p_ff);
      ASSERT_EQ(stepped.size(), static_cast<std::size_t>(c.batch + (late ? 1 : 0)));
      ASSERT_EQ(ff.size(), stepped.size());
      for (std::size_t i = 0; i < ff.size(); ++i) {
        EXPECT_EQ(ff[i].agent, stepped[i].agent);
        EXPECT_EQ(ff[i].last_token_s, stepped[i].last_token_s) << "request " << stepped[i].agent;
      }
      EXPECT_LT(ev_ff * 5, ev_step) << "fast-forward runs fewer events (one run per completion at least)";
      // Run records carry their steps' mean parts: the step-time parts energy accounting
      // sums agree with stepping's to rounding.
      EXPECT_NEAR(p_ff.compute_s, p_step.compute_s, 1e-9 * p_step.compute_s);
      EXPECT_NEAR(p_ff.memory_s, p_step.memory_s, 1e-9 * p_step.memory_s);
      EXPECT_NEAR(p_ff.comm_s, p_step.comm_s, 1e-9 * p_step.comm_s + 1e-15);
      EXPECT_NEAR(p_ff.overhead_s, p_step.overhead_s, 1e-9 * p_step.overhead_s);
      std::printf("%s%s: %zu requests, last at %.6f s; events %llu stepping, %llu fast-forward\n", c.model,
                  late ? " (late arrival)" : "", ff.size(), stepped.back().last_token_s, ev_step, ev_ff);
      if (late) continue;
      // Sequence 0 finishes first, every sequence decoding until then: at the exact sum
      // of its step prices.
      const StepCoster coster(m, s, cost_options(c));
      core::Ticks t = 0;
      for (long long j = 0; j < c.steps - stagger(c) * (c.batch - 1); ++j) {
        t += core::to_ticks(coster.price(decodes(c, j)).total_s);
      }
      EXPECT_EQ(stepped.front().agent, 0);
      EXPECT_EQ(stepped.front().last_token_s, core::to_seconds(t));
    }
  }
}

// Ten short sequences of gpt-oss-120b on MI355X: the attention sits on its launch floor and
// no other op reads the contexts, so each step lasts the same 5.6763715 ms, a half nanosecond, and the exact
// price rounds up or down by pricing noise. Fast-forward prices such steps exactly
// (the piece's line lies within its error bound of a half tick), so ticks still agree.
TEST_F(FastForwardExact, StepsAtAHalfTickRoundAsExactPricing) {
  const Case c{"gpt-oss-120b", "mi355x-8", 8, 10, 100, 30, 3000};
  const wl::ModelSpec& m = catalog.models.get(c.model);
  const hw::System& s = catalog.systems.get(c.system);
  StepCostOptions o = cost_options(c);
  o.collectives = std::make_shared<const CollectivePricer>(s, o.plan);  // as experiments price them
  const StepCoster coster(m, s, o);
  DecodeSegment seg;
  seg.plan(coster, decodes(c, 0), c.steps);
  long long ties = 0, mismatches = 0;
  core::Ticks lo = core::kTickMax, hi = 0;
  for (long long j = 0; j < c.steps; ++j) {
    const double t_s = coster.price(decodes(c, j)).total_s;
    lo = std::min(lo, core::to_ticks(t_s));
    hi = std::max(hi, core::to_ticks(t_s));
    const double ticks = t_s / core::kSecondsPerTick;
    ties += std::abs(ticks - std::floor(ticks) - 0.5) < 1e-6 ? 1 : 0;
    mismatches += seg.step_ticks(j) != core::to_ticks(t_s) ? 1 : 0;
  }
  EXPECT_GT(ties, c.steps / 2) << "the stretch sits on a half tick";
  EXPECT_EQ(hi, lo + 1) << "exact pricing itself rounds both ways";
  EXPECT_EQ(mismatches, 0);
}

// Attention's HBM efficiency flat up to a 4,096-token mean context, falling above it; every
// other kernel at constant efficiencies. It says where it is flat (constant_between), as
// the calibrated profile does from its knots.
class SteppedAttentionEfficiency final : public KernelEfficiency {
 public:
  static constexpr double kFlatContext = 4096;
  EfficiencyValue compute(const KernelShape&) const override { return {0.7, false, ""}; }
  EfficiencyValue memory(const KernelShape& s) const override {
    if (s.kind != KernelKind::kAttentionDecode || s.context <= kFlatContext) return {0.8, false, ""};
    return {0.8 * std::pow(kFlatContext / s.context, 0.1), false, ""};
  }
  CallFloor launch_floor(bool) const override { return {}; }
  bool constant_between(const KernelShape& a, const KernelShape& b) const override {
    return a.kind == b.kind && (a.kind != KernelKind::kAttentionDecode || std::max(a.context, b.context) <= kFlatContext);
  }
  std::string name() const override { return "stepped attention"; }
};

// Where the end prices show the step cost is affine between them (every context-dependent op
// and the step bound by the same term at both ends, efficiencies flat, no attention kink),
// the plan prices those two steps only; elsewhere it checks inside as before. Either way
// every step's ticks equal exact pricing.
TEST_F(FastForwardExact, AffineStretchesArePricedAtTheirEndsOnly) {
  const wl::ModelSpec& m = catalog.models.get("llama-3.1-70b");
  const hw::System& s = catalog.systems.get("hgx-h100");
  StepCostOptions o{8, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
  o.kernels = std::make_shared<const SteppedAttentionEfficiency>();
  const StepCoster coster(m, s, o);
  auto batch = [](long long context, long long step) {
    StepBatch b;
    for (long long i = 0; i < 4; ++i) b.decodes.push_back(DecodeItem{context + 300 * i + step});
    return b;
  };
  auto check = [&](long long context, long long steps) {
    DecodeSegment seg;
    seg.plan(coster, batch(context, 0), steps);
    long long mismatches = 0;
    for (long long j = 0; j < steps; ++j) {
      mismatches += seg.step_ticks(j) != core::to_ticks(coster.price(batch(context, j)).total_s) ? 1 : 0;
    }
    EXPECT_EQ(mismatches, 0) << "from context " << context;
    AffineProbe a, b;
    coster.price_shifted(batch(context, 0), 0, nullptr, &a);
    coster.price_shifted(batch(context, 0), steps - 1, nullptr, &b);
    EXPECT_TRUE(a.eligible && b.eligible);
    EXPECT_EQ(a.ops.size(), static_cast<std::size_t>(1)) << "one attention core op (llama's one layer kind)";
    return std::make_pair(seg.evaluations(), coster.affine_between(batch(context, 0), 0, steps - 1, a, b));
  };
  // Mean context 1,450 to 3,449: flat efficiency, so affine; the ends are the only prices.
  const auto flat = check(1000, 2000);
  EXPECT_TRUE(flat.second);
  EXPECT_EQ(flat.first, 2);
  // Mean context 3,450 to 6,449: the efficiency falls past 4,096, so the stretch is checked inside.
  const auto falling = check(3000, 3000);
  EXPECT_FALSE(falling.second);
  EXPECT_GT(falling.first, 5);
  // The same flat stretch under two-batch overlap: not known affine (exposure is a max), checked inside.
  StepCostOptions tbo = o;
  tbo.overlap = Overlap::kTwoBatch;
  const StepCoster overlapped(m, s, tbo);
  AffineProbe a, b;
  overlapped.price_shifted(batch(1000, 0), 0, nullptr, &a);
  overlapped.price_shifted(batch(1000, 0), 1999, nullptr, &b);
  EXPECT_FALSE(a.eligible);
  EXPECT_FALSE(overlapped.affine_between(batch(1000, 0), 0, 1999, a, b));
}

// 512 sequences of Llama-3.1-70B on 8 x H100: the step's compute time passes its memory time
// as the contexts grow, while every op keeps its bound. The step time stays affine (it is the
// sum of the ops' times), but its parts are not (overhead is the ops' excess over the larger
// of compute and memory): the plan must still split there, so each step's parts, as the run
// records carry them, match exact pricing (to twice the pieces' tolerance).
TEST_F(FastForwardExact, PartsFollowExactPricingWhereTheStepChangesBound) {
  const Case c{"llama-3.1-70b", "hgx-h100", 8, 512, 100, 1, 1500};
  const wl::ModelSpec& m = catalog.models.get(c.model);
  const hw::System& s = catalog.systems.get(c.system);
  ASSERT_FALSE(some_op_changes_bound(c, m, s));
  const StepCoster coster(m, s, cost_options(c));
  const StepCost first = coster.price(decodes(c, 0)), last = coster.price(decodes(c, c.steps - 1));
  ASSERT_GT(first.compute_s, first.memory_s);
  ASSERT_LT(last.compute_s, last.memory_s);
  DecodeSegment seg;
  seg.plan(coster, decodes(c, 0), c.steps);
  double worst = 0;
  for (long long j = 0; j < c.steps; ++j) {
    const StepCost x = coster.price(decodes(c, j));
    const StepParts p = seg.mean_parts(j, 1);
    for (double d : {p.compute_s - x.compute_s, p.memory_s - x.memory_s,
                     p.comm_s - (x.comm_latency_s + x.comm_transfer_s), p.overhead_s - x.overhead_s}) {
      worst = std::max(worst, std::abs(d) / x.total_s);
    }
  }
  EXPECT_LT(worst, 2 * DecodeSegment::kRelTolerance);  // a piece's documented bound (docs/serving.md)
  EXPECT_GT(seg.pieces(), 2u);
}

// A sliding-window model whose contexts cross the window within the stretch: its attention
// work bends there, so the stretch is not known affine even with every op on one bound.
TEST_F(FastForwardExact, AStretchAcrossTheWindowIsNotKnownAffine) {
  const wl::ModelSpec& m = catalog.models.get("gpt-oss-120b");
  const hw::System& s = catalog.systems.get("hgx-b200");
  const StepCoster coster(m, s, StepCostOptions{2, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3});
  StepBatch b;
  b.decodes.push_back(DecodeItem{100});
  b.decodes.push_back(DecodeItem{5000});
  AffineProbe lo, hi, lo2, hi2;
  coster.price_shifted(b, 0, nullptr, &lo);
  coster.price_shifted(b, 50, nullptr, &hi);
  EXPECT_FALSE(coster.affine_between(b, 0, 50, lo, hi)) << "100 + 50 crosses the 128-token window";
  coster.price_shifted(b, 30, nullptr, &lo2);
  coster.price_shifted(b, 80, nullptr, &hi2);
  EXPECT_TRUE(coster.affine_between(b, 30, 80, lo2, hi2)) << "130 to 180: past the window";
}

}  // namespace
}  // namespace agentsim::serving
