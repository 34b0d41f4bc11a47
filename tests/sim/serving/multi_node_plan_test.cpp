// Replicas that span systems: a plan of more devices than one system has is laid on whole
// systems joined by their scale-out NICs; each collective is priced on the links it crosses
// (NVLink within a system, the NIC between systems, at the catalog's scale_out bandwidth and
// latency), the footprint splits over all the devices, pipeline stages pay their bubble.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "sim/serving/replica_plan.hpp"
#include "sim/serving/step_cost.hpp"
#include "tests/sim/serving/catalog_fixtures.hpp"
#include "workloads/model/footprint.hpp"

namespace agentsim::serving {
namespace {


StepCostOptions options(const hw::System& s, const std::string& plan, int micro_batches = 1) {
  StepCostOptions o;
  o.efficiency = {0.7, 0.8, 0.8};
  o.plan = wl::parse_parallel_plan(plan);
  o.micro_batches = micro_batches;
  o.collectives = std::make_shared<const CollectivePricer>(s, o.plan);
  return o;
}

// hgx-h100: 8 NICs of 400 Gb/s = 50 GB/s, 5 us one-way through one leaf (catalog scale_out); the
// rail-optimised fabric's spine adds one switch traversal (0.5 us). NVLink: 450 GB/s per GPU.
TEST(MultiNodePlan, AllToAllSpanningTwoNodesIsPricedByTheNic) {
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h100");
  ASSERT_DOUBLE_EQ(s.scale_out.nic_bw_Bps, 50e9);
  ASSERT_DOUBLE_EQ(s.scale_out.latency_s, 5e-6);
  const CollectivePricer p(s, wl::parse_parallel_plan("dp=16,ep=16"));
  // Each of 16 ranks sends B/16 to each other rank at once; 8 of them are on the other node, so
  // GPU 0's NIC carries 8 B/16 = B/2 at 50 GB/s (its NVLink share, 7 B/16 at 450 GB/s, is faster).
  // The slowest route crosses rails through a spine: 5 us + 0.5 us.
  const double bytes = 1 << 20;
  const hw::CollectiveCost c = p.price(wl::CollectiveOp::kDispatch, bytes);
  EXPECT_EQ(c.algorithm, "direct");
  EXPECT_NEAR(c.latency_s, 5.5e-6, 1e-15);
  EXPECT_NEAR(c.transfer_s, bytes / 2 / 50e9, 1e-15);
  // The same width within one NVL72 rack stays on NVLink: several times cheaper.
  const CollectivePricer rack(test::fixture_catalog().systems.get("gb300-nvl72"), wl::parse_parallel_plan("dp=16,ep=16"));
  EXPECT_LT(rack.price(wl::CollectiveOp::kDispatch, bytes).total_s() * 4, c.total_s());
  // What explain prints: the EP group spans 2 systems, 8 of its 15 peers behind the NIC.
  const CollectiveGroup& ep = p.groups().at(1);
  EXPECT_EQ(ep.name, "ep");
  EXPECT_EQ(ep.members, 16);
  EXPECT_EQ(ep.systems, 2);
  EXPECT_EQ(ep.off_system_peers, 8);
  EXPECT_DOUBLE_EQ(ep.scale_out_bw_Bps, 50e9);
  EXPECT_DOUBLE_EQ(ep.scale_up_bw_Bps, 450e9);
  EXPECT_NE(ep.links().find("NIC 50 GB/s, 5.50 us (8 of 15 peers off-system)"), std::string::npos) << ep.links();
  // Within one node: no NIC.
  const CollectivePricer one(s, wl::parse_parallel_plan("dp=8,ep=8"));
  EXPECT_EQ(one.groups().at(1).systems, 1);
  EXPECT_EQ(one.groups().at(1).links().find("NIC"), std::string::npos);
}

// Without an all-to-all backend (a2a=0) the EP group of two nodes exchanges tokens by all-gather and
// reduce-scatter, priced two-level: 7 NVLink steps (1.5 us) and one NIC step on the same rail
// (5 us) each, not a flat ring's 15 NIC-bound steps; the plan has no all-to-all to price.
TEST(MultiNodePlan, WithoutAnAllToAllTheExpertExchangeIsTwoLevel) {
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h100");
  const CollectivePricer p(s, wl::parse_parallel_plan("dp=16,ep=16,a2a=0"));
  const double bytes = 64 * 7168 * 2.0;
  for (const wl::CollectiveOp op : {wl::CollectiveOp::kAllGather, wl::CollectiveOp::kReduceScatter}) {
    const hw::CollectiveCost c = p.price(op, bytes);
    EXPECT_EQ(c.algorithm, "hierarchical") << wl::to_string(op);
    EXPECT_NEAR(c.latency_s, 7 * 1.5e-6 + 5e-6, 1e-15) << wl::to_string(op);
  }
  EXPECT_EQ(p.price(wl::CollectiveOp::kDispatch, bytes).algorithm, "none");
  EXPECT_EQ(p.groups().at(1).collective, "all-gather + reduce-scatter");
  const auto& m = test::fixture_catalog().models.get("deepseek-v4-pro");
  const StepCost c = step_cost(parse_step_batch("decode=64@4096"), m, s, options(s, "dp=16,ep=16,a2a=0"));
  std::map<std::string, int> rows;
  for (const CollectiveCostRow& r : c.breakdown.collectives) {
    ++rows[r.kind];
    EXPECT_EQ(r.group, 16) << r.kind;
    EXPECT_GT(r.latency_s, 0.0) << r.kind;
  }
  EXPECT_GT(rows["all_gather"], 0);
  EXPECT_EQ(rows["all_gather"], rows["reduce_scatter"]);
  EXPECT_EQ(rows.count("all_to_all_dispatch"), 0U);
}

// The step's dispatch and combine rows carry that price (network efficiency 0.8 applied).
TEST(MultiNodePlan, StepDispatchCrossesTheNic) {
  const auto& m = test::fixture_catalog().models.get("deepseek-v4-pro");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h100");
  const StepCost c = step_cost(parse_step_batch("decode=64@4096"), m, s, options(s, "dp=16,ep=16"));
  int rows = 0;
  for (const CollectiveCostRow& r : c.breakdown.collectives) {
    if (r.kind != "all_to_all_dispatch") continue;
    ++rows;
    EXPECT_EQ(r.group, 16);
    EXPECT_NEAR(r.latency_s, r.count * 5.5e-6, 1e-12);
    EXPECT_NEAR(r.transfer_s / (r.count * r.payload_bytes / 2 / 50e9 / 0.8), 1.0, 1e-9);
  }
  EXPECT_GT(rows, 0);
}

// EP 72 over 384 experts (48 redundant) in one NVL72 rack: the routing skew loads the busiest
// rank, its expert compute and memory and its all-to-all transfer, and nothing else.
TEST(MultiNodePlan, ImbalanceLoadsTheBusiestRankOfAWideEp) {
  const auto& m = test::fixture_catalog().models.get("deepseek-v4-pro");
  const hw::System& s = test::fixture_catalog().systems.get("gb300-nvl72");
  const StepBatch b = parse_step_batch("decode=256@4096");
  StepCostOptions o = options(s, "dp=72,ep=72");
  const StepCost even = step_cost(b, m, s, o);
  o.ep_imbalance = 1.5;
  const StepCost skew = step_cost(b, m, s, o);
  ASSERT_EQ(even.breakdown.ops.size(), skew.breakdown.ops.size());
  int experts = 0;
  for (std::size_t i = 0; i < even.breakdown.ops.size(); ++i) {
    const OpCost& a = even.breakdown.ops[i];
    const OpCost& c = skew.breakdown.ops[i];
    const double f = a.op == "routed_experts" ? 1.5 : 1.0;
    experts += a.op == "routed_experts" ? 1 : 0;
    EXPECT_NEAR(c.memory_s, f * a.memory_s, 1e-15) << a.op;
    EXPECT_NEAR(c.compute_s, f * a.compute_s, 1e-15) << a.op;
  }
  EXPECT_GT(experts, 0);
  for (std::size_t i = 0; i < even.breakdown.collectives.size(); ++i) {
    const CollectiveCostRow& a = even.breakdown.collectives[i];
    const bool a2a = a.kind == "all_to_all_dispatch" || a.kind == "all_to_all_combine";
    EXPECT_NEAR(skew.breakdown.collectives[i].transfer_s, (a2a ? 1.5 : 1.0) * a.transfer_s, 1e-15) << a.kind;
    EXPECT_DOUBLE_EQ(skew.breakdown.collectives[i].latency_s, a.latency_s);
  }
}

// DeepSeek V4 Pro (~813 GB of weights) does not fit one 8 x 80 GB node; over two its weights split.
TEST(MultiNodePlan, FootprintSplitsOverTheNodes) {
  const auto& m = test::fixture_catalog().models.get("deepseek-v4-pro");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h100");
  EXPECT_FALSE(check_plan(m, s, wl::parse_parallel_plan("tp=8,ep=8")).ok);
  const PlanCheck pp2 = check_plan(m, s, wl::parse_parallel_plan("tp=8,ep=8,pp=2"));
  EXPECT_TRUE(pp2.ok) << pp2.reason;
  const PlanCheck ep16 = check_plan(m, s, wl::parse_parallel_plan("tp=8,dp=2,ep=16"));
  EXPECT_TRUE(ep16.ok) << ep16.reason;
  // Two stages: each device holds half of what one of the eight would.
  const double one = wl::footprint(m, wl::parse_parallel_plan("tp=8,ep=8")).weight_bytes();
  EXPECT_NEAR(pp2.weight_bytes_per_device / one, 0.5, 1e-12);
  // EP over 16: the routed experts (most of the weights) split 16 ways instead of 8.
  const wl::Footprint f8 = wl::footprint(m, wl::parse_parallel_plan("tp=8,ep=8"));
  const wl::Footprint f16 = wl::footprint(m, wl::parse_parallel_plan("tp=8,dp=2,ep=16"));
  EXPECT_NEAR(f16.expert_weight_bytes / f8.expert_weight_bytes, 0.5, 1e-12);
  EXPECT_NEAR(f16.whole_weight_bytes() / m.weight_bytes(), 1.0, 1e-12);
  EXPECT_EQ(wl::parse_parallel_plan("tp=8,dp=2,ep=16").nodes(s.accelerators), 2);
  // The default plan of a model that fits no single node spans two.
  const wl::ParallelPlan chosen = choose_plan(m, s);
  EXPECT_EQ(chosen.nodes(s.accelerators), 2) << chosen.to_string();
}

// Pipeline stages over two nodes: the stage boundary's send/recv crosses the NIC (same rail,
// one leaf: 5 us), and each step pays (pp - 1) micro-batch times of bubble, a share
// (pp - 1) / (micro + pp - 1) that more micro-batches shrink for a compute-bound prefill.
TEST(MultiNodePlan, PipelineBubbleAndStageBoundaryArePriced) {
  const auto& m = test::fixture_catalog().models.get("deepseek-v4-pro");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h100");
  const StepBatch prefill = parse_step_batch("prefill=8x4096@0");
  const StepCost m1 = step_cost(prefill, m, s, options(s, "tp=8,ep=8,pp=2", 1));
  const StepCost m4 = step_cost(prefill, m, s, options(s, "tp=8,ep=8,pp=2", 4));
  for (const StepCost* c : {&m1, &m4}) {
    EXPECT_NEAR(c->breakdown.bubble_s, c->breakdown.micro_batch_s, 1e-15);  // (pp - 1) = 1 micro-batch
    bool boundary = false;
    for (const CollectiveCostRow& r : c->breakdown.collectives) {
      if (r.kind != "send_recv") continue;
      boundary = true;
      EXPECT_DOUBLE_EQ(r.count, 0.5);  // (pp - 1) / pp boundaries a stage
      EXPECT_NEAR(r.latency_s, 0.5 * 5e-6, 1e-15);
      EXPECT_NEAR(r.transfer_s / (0.5 * r.payload_bytes / 50e9 / 0.8), 1.0, 1e-9);
    }
    EXPECT_TRUE(boundary);
  }
  // One micro-batch: the bubble is a whole stage's time, half the step's device time; four:
  // a quarter-batch's, and the step is shorter.
  EXPECT_GT(m1.breakdown.bubble_s, 3 * m4.breakdown.bubble_s);
  EXPECT_LT(m4.total_s, m1.total_s);
}

TEST(MultiNodePlan, PlansThatCannotBeLaidOnTheSystemsSayWhy) {
  const auto& m = test::fixture_catalog().models.get("deepseek-r1");
  const hw::System& s = test::fixture_catalog().systems.get("hgx-h200");
  auto reason = [&](const std::string& p) { return check_plan(m, s, wl::parse_parallel_plan(p)).reason; };
  EXPECT_NE(reason("tp=4,dp=3,ep=12").find("needs 12 devices, more than the system's 8: a replica over several "
                                          "systems fills whole systems (a multiple of 8)"),
            std::string::npos);
  EXPECT_NE(reason("tp=8,pp=32").find("needs 32 systems of 8 devices; a replica spans at most 16"), std::string::npos);
  EXPECT_THROW(CollectivePricer(s, wl::parse_parallel_plan("tp=4,dp=3,ep=12")), core::Error);
  hw::System no_nics = s;
  no_nics.scale_out.nics = 0;
  EXPECT_NE(check_plan(m, no_nics, wl::parse_parallel_plan("tp=16")).reason.find("has no scale-out NICs"),
            std::string::npos);
}

// The expert-parallel group is every `expert_tp`-th GPU of the first stage: it spans systems when
// those GPUs lie in more than one system of the given size.
TEST(MultiNodePlan, ExpertParallelGroupSpansSystemsOnlyWhenItsGpusDo) {
  EXPECT_FALSE(ep_spans_systems(wl::parse_parallel_plan("dp=8,ep=8"), 8));
  EXPECT_TRUE(ep_spans_systems(wl::parse_parallel_plan("dp=16,ep=16"), 8));
  EXPECT_TRUE(ep_spans_systems(wl::parse_parallel_plan("tp=1,ep=32,dp=32"), 8));
  EXPECT_FALSE(ep_spans_systems(wl::parse_parallel_plan("dp=64,ep=64"), 72));
  // TP over two nodes with EP inside each TP rank's stride: EP 2 of TP 16 lies on GPUs 0 and 8.
  EXPECT_TRUE(ep_spans_systems(wl::parse_parallel_plan("tp=16,ep=2"), 8));
  EXPECT_FALSE(ep_spans_systems(wl::parse_parallel_plan("tp=16"), 8));
  // Pipeline stages over nodes, each stage's EP inside one node.
  EXPECT_FALSE(ep_spans_systems(wl::parse_parallel_plan("tp=8,ep=8,pp=2"), 8));
}

}  // namespace
}  // namespace agentsim::serving
