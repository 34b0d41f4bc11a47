// The TP all-reduce priced from a measured table (KernelEfficiency::all_reduce) instead of the
// topology model: the step's all-reduce rows carry exactly the table's time, no network
// efficiency divides it, and sizes the table does not cover fall back to the model.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/serving/batch_text.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "sim/serving/step_cost.hpp"
#include "tests/sim/serving/catalog_fixtures.hpp"

namespace agentsim::serving {
namespace {


// A measured all-reduce table written as a formula: 10 us + bytes / 100 GB/s for messages of
// at least 4 KiB over 8 ranks, nothing elsewhere (no kernel tables: constants apply to ops).
class AffineAllReduceTable final : public KernelEfficiency {
 public:
  EfficiencyValue compute(const KernelShape&) const override { return {}; }
  EfficiencyValue memory(const KernelShape&) const override { return {}; }
  CallFloor launch_floor(bool) const override { return {}; }
  std::string name() const override { return "affine all-reduce table"; }
  MeasuredCollective all_reduce(double bytes, int group) const override {
    if (bytes < 4096 || group != 8) return {};
    return {10e-6 + bytes / 100e9, "affine all-reduce table"};
  }
};

TEST(MeasuredCollective, TheAllReduceIsTheTablesTimeAndNoEfficiencyDividesIt) {
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h200");
  const wl::ParallelPlan plan = wl::parse_parallel_plan("tp=8");
  const AffineAllReduceTable table;
  const CollectivePricer measured(s, plan, CollectiveFidelity::kAnalytical, &table);
  const CollectivePricer model(s, plan);
  EXPECT_EQ(measured.all_reduce_source(), "measured, affine all-reduce table");
  EXPECT_EQ(model.all_reduce_source(), "analytical");
  // At a tabulated size (a power of two) the price is the table's exactly.
  const hw::CollectiveCost c = measured.price(wl::CollectiveOp::kAllReduce, 1 << 20);
  EXPECT_TRUE(c.measured);
  EXPECT_EQ(c.latency_s, 0);
  EXPECT_NEAR(c.transfer_s, 10e-6 + (1 << 20) / 100e9, 1e-15);
  // Below the table: the topology model's latency-bearing cost.
  const hw::CollectiveCost small = measured.price(wl::CollectiveOp::kAllReduce, 1024);
  EXPECT_FALSE(small.measured);
  EXPECT_GT(small.latency_s, 0);

  // In a step: one all-reduce row per TP sync, each the table's time even at network efficiency 0.5.
  const wl::ModelSpec& m = test::fixture_catalog().models.get("llama-3.1-8b");
  StepCostOptions o;
  o.efficiency = {0.7, 0.8, 0.5};
  o.plan = plan;
  o.collectives = std::make_shared<const CollectivePricer>(s, plan, CollectiveFidelity::kAnalytical, &table);
  const StepCost cost = step_cost(parse_step_batch("decode=64@2048"), m, s, o);
  ASSERT_FALSE(cost.breakdown.collectives.empty());
  for (const CollectiveCostRow& r : cost.breakdown.collectives) {
    if (r.kind != "all_reduce") continue;
    EXPECT_EQ(r.algorithm, "measured");
    const double one = measured.price(wl::CollectiveOp::kAllReduce, r.payload_bytes).transfer_s;
    EXPECT_NEAR(r.transfer_s, r.count * one, 1e-12) << r.where;
  }
}

}  // namespace
}  // namespace agentsim::serving
