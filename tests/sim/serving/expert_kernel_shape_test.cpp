// The routed-expert kernel the efficiency lookup sees is the call on the device the step is
// priced at (the busiest expert-parallel rank): the expert slices that device streams, whose
// bytes the op carries, and the routed token-expert pairs each slice multiplies.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/serving/batch_text.hpp"
#include "sim/serving/step_cost.hpp"
#include "tests/sim/serving/catalog_fixtures.hpp"
#include "workloads/model/moe_expectation.hpp"

namespace agentsim::serving {
namespace {


// Records the grouped GEMM shapes it is asked about; constant efficiencies otherwise.
class GroupedShapeRecorder final : public KernelEfficiency {
 public:
  EfficiencyValue compute(const KernelShape& s) const override {
    if (s.kind == KernelKind::kGroupedGemm) shapes.push_back(s);
    return {0.5, false, ""};
  }
  EfficiencyValue memory(const KernelShape&) const override { return {0.5, false, ""}; }
  CallFloor launch_floor(bool) const override { return {}; }
  std::string name() const override { return "grouped shape recorder"; }
  mutable std::vector<KernelShape> shapes;
};

KernelShape routed_shape(const std::string& plan_text, const std::string& batch) {
  auto rec = std::make_shared<GroupedShapeRecorder>();
  StepCostOptions o;
  o.plan = wl::parse_parallel_plan(plan_text);
  o.kernels = rec;
  step_cost(parse_step_batch(batch), test::fixture_catalog().models.get("deepseek-r1"), test::fixture_catalog().systems.get("hgx-b200"), o);
  EXPECT_FALSE(rec->shapes.empty()) << plan_text;
  return rec->shapes.empty() ? KernelShape{} : rec->shapes.front();
}

TEST(ExpertKernelShape, ExpertParallelStepsAreKeyedByTheBusiestRanksExperts) {
  // One decoding token at EP 8: 8 of 256 experts, one per rank on average, but the step waits for
  // the busiest rank, whose expert weights the op carries; its kernel streams that many experts.
  const KernelShape ep = routed_shape("tp=8,ep=8", "decode=1@1024");
  const double busiest = wl::expected_busiest_rank_experts(256, 8, 1, 8);
  EXPECT_GT(busiest, 2.0);
  EXPECT_NEAR(ep.groups, busiest, 1e-9);
  EXPECT_NEAR(ep.groups * ep.m, wl::expected_busiest_rank_assignments(8, 1, 8), 1e-9);  // its pairs
  // 64 tokens: nearly every local expert is touched, each multiplying ~2 pairs.
  const KernelShape ep64 = routed_shape("tp=8,ep=8", "decode=64@1024");
  EXPECT_NEAR(ep64.groups, wl::expected_busiest_rank_experts(256, 8, 64, 8), 1e-9);
  // Its pairs: routing's sampling spread or, larger at 64 tokens, the experts' own popularity
  // (the model card's expert_load_cv: hot experts load the busiest rank beyond uniform routing).
  const wl::FfnSpec& f = test::fixture_catalog().models.get("deepseek-r1").ffn;
  const double skew = wl::expected_busiest_rank_skew(256, 8, 0, f.expert_load_cv, f.expert_load_cv_balanced);
  EXPECT_GT(64.0 * skew, wl::expected_busiest_rank_assignments(8, 64, 8));
  EXPECT_NEAR(ep64.groups * ep64.m, 64.0 * skew, 1e-9);
  // Without EP every device streams a slice of every touched expert and multiplies all pairs.
  const KernelShape tp = routed_shape("tp=8", "decode=64@1024");
  EXPECT_NEAR(tp.groups, wl::expected_distinct_experts(256, 8, 64), 1e-9);
  EXPECT_NEAR(tp.groups * tp.m, 64.0 * 8, 1e-9);
  // The call streams a TP 8 slice of each touched expert: gate, up and down of 2048/8 columns at
  // hidden 7168, FP8 (a byte a weight, plus its 128 x 128 block scales); n counts weights, not bytes
  // or scales: exactly the slice's width, as the measured tables' rows count it.
  const double slice_weights = 3.0 * 2048 / 8 * 7168;
  EXPECT_NEAR(tp.weight_bytes / (tp.groups * slice_weights), 1.0 + 4.0 / (128 * 128), 1e-12);
  EXPECT_NEAR(tp.n, 3.0 * 2048 / 8, 1e-9);
  EXPECT_EQ(tp.k, 7168);
  // At EP 8 the busiest rank streams whole experts: 8x the slice per expert it holds.
  EXPECT_NEAR(ep64.weight_bytes / ep64.groups / (tp.weight_bytes / tp.groups), 8.0, 0.01);
}

}  // namespace
}  // namespace agentsim::serving
