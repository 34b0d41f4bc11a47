// The step-cost engine priced with a breakdown (step_cost, one-off) and without
// (a prepared StepCoster, the hot path): the same totals, bit for bit, over
// every catalog model, several systems, plans, batches and options; the
// breakdown's causes add up to the total.
#include "sim/serving/step_coster.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "tests/sim/serving/step_coster_cases.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/step_cost.hpp"

namespace agentsim::serving {
namespace {


using test::step_coster_cases::batches;
using test::step_coster_cases::check;
using test::step_coster_cases::expect_same_totals;
using test::step_coster_cases::make_options;
using test::step_coster_cases::Variant;
using test::step_coster_cases::variants;

TEST(StepCoster, BreakdownChangesNoTotalOverTheCatalog) {
  const std::vector<StepBatch> bs = batches();
  int priced = 0;
  for (const std::string sys : {"hgx-h200", "mi300x-8", "hgx-a100", "gb300-nvl72"}) {
    const hw::System& s = test::fixture_catalog().systems.get(sys);
    for (const Variant& v : variants()) {
      const StepCostOptions o = make_options(s, v);
      for (const std::string& name : test::fixture_catalog().models.names()) {
        const wl::ModelSpec& m = test::fixture_catalog().models.get(name);
        for (std::size_t i = 0; i < bs.size(); ++i) {
          priced += check(bs[i], m, s, o, sys + " / " + v.name + " / " + name + " / batch " + std::to_string(i));
        }
      }
    }
  }
  // 4 systems x 14 variants x 13 models x 6 batches, all priceable.
  EXPECT_EQ(priced, 4 * static_cast<int>(variants().size()) * static_cast<int>(test::fixture_catalog().models.size()) * 6);
}

// A coster is a value: copies and moves keep pricing the same, and the
// options it keeps are its own (the caller's copy may change afterwards).
TEST(StepCoster, OwnsItsOptions) {
  const wl::ModelSpec& m = test::fixture_catalog().models.get("deepseek-v3");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h200");
  StepCostOptions o = make_options(s, variants()[5]);
  const StepBatch b = batches()[4];
  const StepCost ref = step_cost(b, m, s, o);
  const StepCoster a(m, s, o);
  o.spec = {};
  o.overlap = Overlap::kCommCompute;
  const StepCoster copy = a;  // NOLINT(performance-unnecessary-copy-initialization): the copy is under test
  expect_same_totals(copy.price(b), ref, "copy");
  EXPECT_EQ(copy.options().spec.draft_tokens, 3);
  // The changed options price differently (no drafting), so the comparison above could fail.
  EXPECT_NE(StepCoster(m, s, o).price(b).total_s, ref.total_s);
}

// One memo across a replica's mix of steps (decodes at growing contexts, prefills, mixed,
// two-batch overlap, speculation): every price equals memo-less pricing bit for bit, and
// the memo both reuses (unchanged ops) and reprices (attention, new shapes).
TEST(StepCoster, MemoReusesPricesBitForBitAcrossAReplicasSteps) {
  const std::vector<StepBatch> bs = batches();
  for (const std::string name : {"deepseek-v3", "gpt-oss-120b", "llama-3.1-8b"}) {
    const wl::ModelSpec& m = test::fixture_catalog().models.get(name);
    const hw::System& s = test::fixture_catalog().systems.get("hgx-h200");
    for (const Variant& v : {variants()[3], variants()[5], variants()[9]}) {
      SCOPED_TRACE(name + " / " + v.name);
      const StepCoster coster(m, s, make_options(s, v));
      PriceMemo memo;
      for (int round = 0; round < 2; ++round) {
        for (std::size_t i = 0; i < bs.size(); ++i) {
          for (long long shift : {0LL, 1LL, 2LL, 700LL}) {
            const std::string what = "batch " + std::to_string(i) + " shift " + std::to_string(shift);
            expect_same_totals(coster.price_shifted(bs[i], shift, &memo), coster.price_shifted(bs[i], shift), what);
          }
        }
      }
      EXPECT_GT(memo.hits(), 0) << "unchanged ops reuse their price";
      EXPECT_GT(memo.misses(), 0) << "changed ops are priced again";
    }
  }
}

// A memo keeps prices per coster: passed between two costers whose options differ (another
// plan's collectives, another expert imbalance), each still prices as without a memo.
TEST(StepCoster, MemoSharedByTwoCostersPricesEachAsItsOwn) {
  const wl::ModelSpec& m = test::fixture_catalog().models.get("deepseek-v3");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h200");
  StepCostOptions other = make_options(s, variants()[3]);
  other.ep_imbalance = 2.0;
  const StepCoster a(m, s, make_options(s, variants()[3])), b(m, s, other);
  PriceMemo memo;
  int differing = 0;
  for (const StepBatch& batch : batches()) {
    differing += a.price(batch).total_s != b.price(batch).total_s ? 1 : 0;
    for (int round = 0; round < 2; ++round) {
      expect_same_totals(a.price(batch, memo), a.price(batch), "coster a");
      expect_same_totals(b.price(batch, memo), b.price(batch), "coster b");
    }
  }
  EXPECT_GE(differing, 4) << "the costers price most batches differently, so a stale price would show";
}

// 64 decodes of `context` tokens of Llama-3.1-70B at TP 8 on an HGX H100, constant efficiencies
// and no host time: the engine-host tests' step.
struct HostTimeCase {
  const wl::ModelSpec& m = test::fixture_catalog().models.get("llama-3.1-70b");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h100");
  StepBatch b;
  StepCostOptions o{8, hw::Efficiency{0.7, 0.8, 0.8}, 0.0};
  explicit HostTimeCase(long long context) { b.decodes.assign(64, DecodeItem{context}); }
};

// The engine's per-sequence host work with the overlap scheduler: a step costs its device time
// plus the fixed host term plus only the host work that outlasts the device time (EngineOverhead::
// exposed_s), so it is min(host work, device time) shorter than without the scheduler; the
// breakdown books the hidden part and its causes still add up to the total.
TEST(StepCoster, OverlapSchedulerHidesHostWorkUpToTheDeviceTime) {
  HostTimeCase k(2000);
  auto& [m, s, b, o] = k;
  const double device_s = StepCoster(m, s, o).price(b).total_s;  // no host time at all
  ASSERT_GT(device_s, 0);
  o.engine.graph_fixed_s = 1e-3;
  for (const double per_sequence_s : {device_s / 640, device_s / 64, 10 * device_s / 64}) {
    o.engine.per_sequence_s = per_sequence_s;
    const double work_s = 64 * per_sequence_s;
    o.engine.overlap_scheduler = false;
    const double off_s = StepCoster(m, s, o).price(b).total_s;
    EXPECT_NEAR(off_s, device_s + 1e-3 + work_s, 1e-12);
    o.engine.overlap_scheduler = true;
    const StepCost on = step_cost(b, m, s, o);
    EXPECT_NEAR(on.total_s, device_s + 1e-3 + std::max(0.0, work_s - device_s), 1e-12) << per_sequence_s;
    EXPECT_NEAR(off_s - on.total_s, std::min(work_s, device_s), 1e-12);
    EXPECT_NEAR(on.breakdown.host_hidden_s, std::min(work_s, device_s), 1e-12);
    EXPECT_NEAR(on.breakdown.causes.sum(), on.total_s, 1e-12);
    EXPECT_EQ(StepCoster(m, s, o).price(b).total_s, on.total_s);  // the hot path agrees bit for bit
  }
}

// The probes of a decode stretch whose device time grows past the engine's host work: with the
// overlap scheduler the work is exposed at one end and hidden at the other (a kink the fast path
// must not step over); without it the work is exposed at both, and the probes agree.
TEST(StepCoster, ProbeSeesTheOverlapKinkOnlyWithTheOverlapScheduler) {
  HostTimeCase k(1000);
  auto& [m, s, b, o] = k;
  const long long shift = 20000;
  const double first_s = StepCoster(m, s, o).price_shifted(b, 0).total_s;
  const double last_s = StepCoster(m, s, o).price_shifted(b, shift).total_s;
  ASSERT_LT(first_s * 1.2, last_s) << "the device time must grow along the stretch";
  o.engine.per_sequence_s = (first_s + last_s) / 2 / 64;  // the host work: between the two
  for (const bool overlap : {true, false}) {
    o.engine.overlap_scheduler = overlap;
    const StepCoster coster(m, s, o);
    AffineProbe lo, hi;
    coster.price_shifted(b, 0, nullptr, &lo);
    coster.price_shifted(b, shift, nullptr, &hi);
    ASSERT_TRUE(lo.eligible && hi.eligible);
    EXPECT_EQ(lo.host_hidden, !overlap) << "exposed at the short end only with the scheduler";
    EXPECT_TRUE(hi.host_hidden);
  }
}

TEST(StepCoster, EmptyBatchCostsNothing) {
  const StepCoster c(test::fixture_catalog().models.get("llama-3.1-8b"), test::fixture_catalog().systems.get("hgx-h200"), StepCostOptions{});
  const StepCost z = c.price(StepBatch{});
  EXPECT_EQ(z.total_s, 0.0);
  EXPECT_EQ(z.flops, 0.0);
}

}  // namespace
}  // namespace agentsim::serving
