// Parallel plans, overlap, floors and speculative decoding
// in the step cost model (calibration profiles: tests/experiments/run/profile_efficiency_test.cpp;
// `agentsim explain`: tests/experiments/cli/explain_cli_test.cpp).
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "tests/sim/serving/step_coster_cases.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/replica_plan.hpp"
#include "sim/serving/step_cost.hpp"
#include "workloads/model/moe_expectation.hpp"

namespace agentsim::serving {
namespace {

struct Plans : ::testing::Test {
  static const serving::test::FixtureCatalog& cat() { return serving::test::fixture_catalog(); }
  static StepCostOptions options(const hw::System& s, const std::string& plan) {
    return test::step_coster_cases::plan_options(s, plan);
  }
};

TEST_F(Plans, TensorParallelAllReducesTwicePerLayer) {
  const auto& m = cat().models.get("llama-3.1-70b");
  const auto& s = cat().systems.get("hgx-h200");
  const StepCost c = step_cost(parse_step_batch("decode=4@2000"), m, s, options(s, "tp=8"));
  // 80 layers x 2 (attention and FFN outputs); payload = 4 tokens x 8192 hidden x 2 B (BF16).
  EXPECT_EQ(c.allreduces, 160);
  EXPECT_DOUBLE_EQ(c.allreduce_bytes, 4 * 8192 * 2.0);
}

TEST_F(Plans, ExpertParallelAllToAllSizes) {
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  const StepCost c = step_cost(parse_step_batch("decode=16@1000"), m, s, options(s, "tp=1,dp=8,ep=8"));
  // Attention DP: each of 8 groups holds 2 of the 16 sequences. Combine per device = 16 tokens / 8 devices x top-8 x 7168 hidden x 2 B (BF16) = 229,376 B for the
  // mean device, times the busiest device's (token, expert) assignments over the mean's; the dispatch
  // sends the same elements in FP8 with a 4-byte scale per 128 (R1's experts are FP8); once per MoE
  // layer (58).
  const double busiest = wl::expected_busiest_rank_assignments(8, 16, 8) / (8.0 * 16 / 8);
  EXPECT_GT(busiest, 1.2);
  int found = 0;
  for (const CollectiveCostRow& r : c.breakdown.collectives) {
    if (r.kind != "all_to_all_dispatch" && r.kind != "all_to_all_combine") continue;
    ++found;
    const double bytes_per_element = r.kind == "all_to_all_dispatch" ? (1.0 + 4.0 / 128) / 2.0 : 1.0;
    EXPECT_NEAR(r.payload_bytes, 229376.0 * busiest * bytes_per_element, 1e-6) << r.kind;
    EXPECT_DOUBLE_EQ(r.count, 58.0);
    EXPECT_EQ(r.group, 8);
  }
  EXPECT_EQ(found, 2);
  // Imbalance 1.5 makes the busiest rank's expert work and all-to-all 1.5x longer.
  StepCostOptions o = options(s, "tp=1,dp=8,ep=8");
  o.ep_imbalance = 1.5;
  const StepCost im = step_cost(parse_step_batch("decode=16@1000"), m, s, o);
  for (std::size_t i = 0; i < c.breakdown.collectives.size(); ++i) {
    const auto& a = c.breakdown.collectives[i];
    const auto& b = im.breakdown.collectives[i];
    if (a.kind.rfind("all_to_all", 0) == 0) {
      EXPECT_NEAR(b.transfer_s, 1.5 * a.transfer_s, 1e-15);
    }
  }
  EXPECT_GT(im.total_s, c.total_s);
}

TEST_F(Plans, TensorParallelAttentionNeedsNoAllToAll) {
  // Under attention TP every rank holds every token: each runs its own experts on them and the
  // FFN-output all-reduce sums the partial outputs, so the step has no dispatch or combine; with
  // attention DP on the same 8 GPUs it has both.
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  auto kinds = [&](const char* plan) {
    std::map<std::string, double> count;
    for (const CollectiveCostRow& r : step_cost(parse_step_batch("decode=16@1000"), m, s, options(s, plan)).breakdown.collectives) {
      count[r.kind] += r.count;
    }
    return count;
  };
  const auto tp = kinds("tp=8,ep=8"), dp = kinds("tp=1,dp=8,ep=8");
  EXPECT_EQ(tp.count("all_to_all_dispatch"), 0U);
  EXPECT_EQ(tp.count("all_to_all_combine"), 0U);
  EXPECT_DOUBLE_EQ(tp.at("all_reduce"), 2.0 * 61);  // attention and FFN output, every layer
  EXPECT_DOUBLE_EQ(dp.at("all_to_all_dispatch"), 58.0);
  EXPECT_DOUBLE_EQ(dp.at("all_to_all_combine"), 58.0);
  EXPECT_EQ(dp.count("all_reduce"), 0U);
}

// Without a CollectivePricer the all-gather exchange is priced in closed form on the scale-up
// figures: a ring of n - 1 steps over the step's token buffer (16 tokens x 7168 x 2 B) per MoE layer.
TEST_F(Plans, WithoutAPricerTheAllGatherExchangeIsARing) {
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions o = options(s, "tp=1,dp=8,ep=8,a2a=0");
  o.collectives = nullptr;
  int rows = 0;
  for (const CollectiveCostRow& r : step_cost(parse_step_batch("decode=16@1000"), m, s, o).breakdown.collectives) {
    if (r.kind != "all_gather" && r.kind != "reduce_scatter") continue;
    ++rows;
    EXPECT_DOUBLE_EQ(r.payload_bytes, 16 * 7168 * 2.0);
    EXPECT_NEAR(r.latency_s, 58 * 7 * s.scale_up_latency_s, 1e-12) << r.kind;
    EXPECT_NEAR(r.transfer_s, 58 * r.payload_bytes * 7 / 8 / s.scale_up_bw_Bps / 0.8, 1e-12) << r.kind;
  }
  EXPECT_EQ(rows, 2);
}

TEST_F(Plans, PipelineBubble) {
  const auto& m = cat().models.get("llama-3.1-8b");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions o = options(s, "tp=1,pp=2");
  o.micro_batches = 4;
  const StepBatch b = parse_step_batch("decode=32@1000");
  const StepCost c = step_cost(b, m, s, o);
  // (micro-batches + pp - 1) micro-batch times: 4 of work, 1 of bubble.
  EXPECT_NEAR(c.breakdown.bubble_s, c.breakdown.micro_batch_s, 1e-15);
  EXPECT_NEAR(c.total_s, 5 * c.breakdown.micro_batch_s, 1e-12);
  EXPECT_NEAR(c.breakdown.causes.sum(), c.total_s, 1e-12);
}

TEST_F(Plans, BatchOneIsFarBelowBandwidthOverActiveBytes) {
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions o = options(s, "tp=8");
  const StepCost c = step_cost(parse_step_batch("decode=1@4096"), m, s, o);
  // HBM bw / active bytes per device = 4.8e12 / weight bytes read: the naive speed.
  const double naive_tok_s = 4.8e12 / (c.weight_bytes + c.kv_read_bytes);
  EXPECT_LT(1.0 / c.total_s, 0.5 * naive_tok_s);
  EXPECT_GT(c.breakdown.causes.floor_s, 0.2 * c.total_s);  // launches and all-reduce latency
  o.cuda_graph = true;
  const StepCost g = step_cost(parse_step_batch("decode=1@4096"), m, s, o);
  EXPECT_LT(g.breakdown.causes.floor_s, c.breakdown.causes.floor_s);
  EXPECT_LT(g.total_s, c.total_s);
}

// Engines replay graphs for decode-only steps up to their largest captured batch; prefill
// and mixed steps, and larger decode batches, launch every kernel eagerly.
TEST_F(Plans, OnlyCapturedDecodeStepsGetTheGraphFloor) {
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions eager = options(s, "tp=8");
  StepCostOptions graph = eager;
  graph.cuda_graph = true;
  graph.engine.graph_max_sequences = 4;
  auto total = [&](const char* batch, const StepCostOptions& o) { return step_cost(parse_step_batch(batch), m, s, o).total_s; };
  EXPECT_LT(total("decode=4@4096", graph), total("decode=4@4096", eager));
  EXPECT_EQ(total("decode=5@4096", graph), total("decode=5@4096", eager));  // past the captured sizes
  EXPECT_EQ(total("prefill=1x1024@0", graph), total("prefill=1x1024@0", eager));
  EXPECT_EQ(total("decode=2@4096,prefill=1x512@0", graph), total("decode=2@4096,prefill=1x512@0", eager));
}

TEST_F(Plans, MoreTokensNeverCostLess) {
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  const StepCostOptions o = options(s, "tp=8,ep=8");
  double prev = 0;
  for (int n = 1; n <= 1024; n *= 2) {
    const double t = step_cost(parse_step_batch("decode=" + std::to_string(n) + "@8000"), m, s, o).total_s;
    EXPECT_GE(t, prev) << n;
    prev = t;
  }
}

TEST_F(Plans, TwoBatchOverlapHidesExpertCommunication) {
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  // Attention data-parallel, experts over the node: the layout two-batch overlap is built for.
  StepCostOptions o = options(s, "tp=1,dp=8,ep=8");
  const StepBatch b = parse_step_batch("decode=256@2000");
  const StepCost none = step_cost(b, m, s, o);
  o.overlap = Overlap::kTwoBatch;
  const StepCost tbo = step_cost(b, m, s, o);
  EXPECT_GT(tbo.breakdown.hidden_comm_s, 0.0);
  EXPECT_LT(tbo.breakdown.exposed_comm_s, none.breakdown.exposed_comm_s);
  EXPECT_NEAR(tbo.breakdown.causes.sum(), tbo.total_s, 1e-12);
}

TEST_F(Plans, TwoBatchOverlapLeavesInStreamCollectivesExposed) {
  // Tensor-parallel attention within each of 4 DP groups: its all-reduces run in the stream, so
  // each micro-batch's are exposed whole; only the expert all-to-alls can hide.
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions o = options(s, "tp=2,dp=4,ep=8");
  o.overlap = Overlap::kTwoBatch;
  const StepCost tbo = step_cost(parse_step_batch("decode=256@2000"), m, s, o);
  double all_reduce_s = 0, all_to_all_s = 0;
  for (const CollectiveCostRow& r : tbo.breakdown.collectives) {
    (r.kind == "all_reduce" ? all_reduce_s : all_to_all_s) += r.latency_s + r.transfer_s;
  }
  ASSERT_GT(all_reduce_s, 0.0);
  ASSERT_GT(all_to_all_s, 0.0);
  EXPECT_GE(tbo.breakdown.exposed_comm_s, all_reduce_s - 1e-12);
  EXPECT_LE(tbo.breakdown.hidden_comm_s, all_to_all_s + 1e-12);
}

TEST_F(Plans, HostResidentKvLoadsShareTheHostLink) {
  const auto& m = cat().models.get("llama-3.1-70b");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions o = options(s, "tp=8");
  o.host_kv_load_tokens = 32768;
  const StepBatch b = parse_step_batch("prefill=1x512@32768");
  const StepCost c = step_cost(b, m, s, o);
  // 32768 tokens x 327,680 B / 8 devices = 1.342 GB per GPU over its own PCIe5 x16 (64 GB/s,
  // one GPU per link; host DRAM 563 GB/s / 8 = 70 GB/s is not the limit) = 20.97 ms + 80 layers x latency.
  EXPECT_NEAR(c.breakdown.causes.host_link_s, 32768 * 327680.0 / 8 / 64e9, 2e-3);
  o.host_prefetch = true;
  const StepCost p = step_cost(b, m, s, o);
  EXPECT_LT(p.total_s, c.total_s);
}

TEST_F(Plans, SpeculativeDecodingVerifiesKPlusOneTokens) {
  SpecDecodeOptions sp;
  sp.draft_tokens = 2;
  sp.acceptance = {0.8, 0.5};
  EXPECT_DOUBLE_EQ(sp.expected_tokens_per_step(), 1 + 0.8 + 0.8 * 0.5);  // 2.2
  const auto& m = cat().models.get("deepseek-r1");
  const auto& s = cat().systems.get("hgx-h200");
  StepCostOptions o = options(s, "tp=8");
  const StepBatch b = parse_step_batch("decode=8@2000");
  const StepCost plain = step_cost(b, m, s, o);
  o.spec = sp;
  const StepCost spec = step_cost(b, m, s, o);
  EXPECT_DOUBLE_EQ(spec.breakdown.tokens_per_step, 2.2);
  EXPECT_GT(spec.breakdown.draft_s, 0.0);
  EXPECT_GT(spec.total_s, plain.total_s);
  EXPECT_GT(spec.breakdown.tokens_per_step / spec.total_s, 1.0 / plain.total_s);  // memory-bound: a net gain
  sp.acceptance = {0.8};
  EXPECT_THROW(check_spec_decode(sp), core::Error);
}

TEST_F(Plans, InvalidPlansSayWhy) {
  const auto& r1 = cat().models.get("deepseek-r1");
  const auto& llama = cat().models.get("llama-3.1-70b");
  const auto& s = cat().systems.get("hgx-h200");
  auto reason = [&](const wl::ModelSpec& m, const std::string& p) {
    return check_plan(m, s, wl::parse_parallel_plan(p)).reason;
  };
  // More devices than one system: whole systems only (tp=16 spans two HGX nodes and is valid).
  EXPECT_NE(reason(r1, "tp=12").find("needs 12 devices, more than the system's 8"), std::string::npos);
  EXPECT_TRUE(check_plan(r1, s, wl::parse_parallel_plan("tp=16")).ok);
  // EP need not divide the routed experts (redundant experts fill the ranks); a rank needs one.
  EXPECT_TRUE(check_plan(r1, s, wl::parse_parallel_plan("tp=2,dp=3,ep=6")).ok);
  EXPECT_NE(reason(llama, "tp=2,ep=2").find("no routed experts"), std::string::npos);
  EXPECT_NE(reason(llama, "tp=3").find("tp=3 does not divide the 64 attention heads"), std::string::npos);
  // DeepSeek-R1 FP8 is ~690 GB of weights: one 141 GB H200 cannot hold it.
  EXPECT_NE(reason(r1, "tp=1").find("per device exceed 141.0 GB HBM x 0.90"), std::string::npos);
  EXPECT_THROW(wl::parse_parallel_plan("tp=8,ep=3"), core::Error);
}

TEST_F(Plans, EveryCatalogPairWithAValidPlanExplains) {
  int valid = 0, invalid = 0;
  for (const auto& mname : cat().models.names()) {
    const auto& m = cat().models.get(mname);
    for (const auto& sname : cat().systems.names()) {
      const auto& s = cat().systems.get(sname);
      wl::ParallelPlan plan;
      try {
        plan = choose_plan(m, s);
      } catch (const core::Error& e) {
        ++invalid;
        EXPECT_NE(std::string(e.what()).find("no valid plan for " + mname), std::string::npos);
        continue;
      }
      ++valid;
      ASSERT_TRUE(check_plan(m, s, plan).ok) << mname << " " << sname;
      const StepCostOptions o = options(s, plan.to_string());
      for (const char* b : {"decode=1@1000", "decode=64@32768,prefill=1x4096@0"}) {
        const StepCost c = step_cost(parse_step_batch(b), m, s, o);
        EXPECT_TRUE(std::isfinite(c.total_s) && c.total_s > 0) << mname << " " << sname << " " << b;
        EXPECT_NEAR(c.breakdown.causes.sum(), c.total_s, 1e-9 * c.total_s) << mname << " " << sname;
      }
    }
  }
  EXPECT_GT(valid, 100);  // 13 models x 10 systems; the biggest models do not fit the smallest nodes
  std::printf("catalog pairs: %d with a valid plan, %d without\n", valid, invalid);
}

}  // namespace
}  // namespace agentsim::serving
