#include "workloads/model/batch_work.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/workloads/model/model_fixtures.hpp"
#include "workloads/model/moe_expectation.hpp"
#include "workloads/model/op.hpp"
#include "workloads/model/param_counts.hpp"

namespace agentsim::wl {
namespace {

using test::model;

TEST(BatchWork, DenseDecodeMatchesTheModelsPerTokenFigures) {
  const ModelSpec& m = model("llama-3.1-70b");
  BatchShape b;
  b.decode_contexts = {1000, 3000};
  const BatchWork w = batch_work(m, parse_parallel_plan("tp=1"), b);
  const double expected = 2 * m.linear_flops_per_token() + m.attention_flops_per_token(1000) +
                          m.attention_flops_per_token(3000) + 2 * m.lm_head_flops_per_token();
  EXPECT_NEAR(w.flops() / expected, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(w.kv_read_bytes(), 327680.0 * 4000);
  EXPECT_DOUBLE_EQ(w.kv_write_bytes(), 327680.0 * 2);
  EXPECT_TRUE(w.collectives.empty());
  // Layer weights are read once for the whole batch, plus embedding rows.
  EXPECT_NEAR(w.weight_read_bytes(), m.weight_bytes() - 80.0 * 2 * 8192 * 2 - 8192 * 2 - 128256.0 * 8192 * 2 +
                                         2 * 8192 * 2, 1.0);
}

TEST(BatchWork, TensorParallelSplitsWorkAndAddsAllReduces) {
  const ModelSpec& m = model("llama-3.1-70b");
  BatchShape b;
  b.prefill = {PrefillShape{512, 0, true}};
  const BatchWork w1 = batch_work(m, parse_parallel_plan("tp=1"), b);
  const BatchWork w8 = batch_work(m, parse_parallel_plan("tp=8"), b);
  EXPECT_NEAR(w8.flops() * 8 / w1.flops(), 1.0, 1e-12);
  // Two all-reduces per layer of 512 tokens x 8192 x 2 B.
  ASSERT_EQ(w8.collectives.size(), 2u);
  EXPECT_DOUBLE_EQ(w8.collectives[0].count, 80.0);
  EXPECT_DOUBLE_EQ(w8.collectives[0].payload_bytes, 512.0 * 8192 * 2);
}

TEST(BatchWork, PrefillAttentionIsCausal) {
  const ModelSpec& m = model("llama-3.1-8b");
  BatchShape b;
  b.prefill = {PrefillShape{8, 100, true}};
  const BatchWork w = batch_work(m, parse_parallel_plan("tp=1"), b);
  double core = 0;
  for (const OpWork& o : w.ops) core += o.op == "attn_core" ? o.flops : 0.0;
  // Tokens see 101..108 earlier-or-own tokens: sum = 836; 4 x 32 heads x 128 x 32 layers per token.
  EXPECT_DOUBLE_EQ(core, 4.0 * 32 * 128 * 32 * 836);
}

// The busiest expert-parallel rank's load is remembered per thread (step_work.cpp): a step of
// 700 tokens (past the 0..511 table) under EP 8, then EP 4, then EP 8 again on one thread gives
// what fresh threads compute, and the two plans differ (a key without the ranks would not).
TEST(BatchWork, RoutedLoadRememberedPerThreadIsWhatAFreshThreadComputes) {
  const ModelSpec& m = model("deepseek-v3");
  BatchShape b;
  b.prefill = {PrefillShape{700, 0, true}};
  auto routed = [&](const char* plan) {
    std::vector<double> v;
    for (const OpWork& o : batch_work(m, parse_parallel_plan(plan), b).ops) {
      if (o.op == "routed_experts") v = {o.flops, o.weight_read_bytes, o.act_read_bytes};
    }
    return v;
  };
  const std::vector<double> ep8 = routed("tp=1,dp=8,ep=8"), ep4 = routed("tp=1,dp=4,ep=4"), again = routed("tp=1,dp=8,ep=8");
  std::vector<double> fresh8, fresh4;
  std::thread([&] { fresh8 = routed("tp=1,dp=8,ep=8"); }).join();
  std::thread([&] { fresh4 = routed("tp=1,dp=4,ep=4"); }).join();
  ASSERT_EQ(ep8.size(), 3u);
  EXPECT_EQ(ep8, fresh8);
  EXPECT_EQ(again, fresh8);
  EXPECT_EQ(ep4, fresh4);
  EXPECT_NE(ep8[0] * 8, ep4[0] * 4) << "the busiest rank's token share differs between the plans";
}

TEST(BatchWork, MoeWeightsTouchedFollowTheDistinctExpertExpectation) {
  const ModelSpec& m = model("deepseek-v3");
  BatchShape b;
  b.decode_contexts.assign(16, 4096);
  const BatchWork w = batch_work(m, parse_parallel_plan("tp=1,dp=8,ep=8"), b);
  double expert_bytes = 0;
  for (const OpWork& o : w.ops) expert_bytes += o.op == "routed_experts" ? o.weight_read_bytes : 0.0;
  // 58 MoE layers x 3 x 7168 x 2048 x (1 + 4/128^2) B per expert, for the experts the busiest of the
  // 8 expert-parallel devices holds among those 16 tokens touch (the step waits for it) ...
  const double per_expert = 3.0 * 7168 * 2048 * (1.0 + 4.0 / (128.0 * 128));
  EXPECT_NEAR(expert_bytes, 58 * expected_busiest_rank_experts(256, 8, 16, 8) * per_expert, 1.0);
  // ... which is more than the mean device's share of the distinct experts touched.
  EXPECT_GT(expert_bytes, 1.2 * 58 * expected_distinct_experts(256, 8, 16) * per_expert / 8);
  bool dispatch = false;
  for (const CollectiveWork& c : w.collectives) dispatch = dispatch || c.kind == "all_to_all_dispatch";
  EXPECT_TRUE(dispatch);
}

TEST(BatchWork, Fp8ExpertsDispatchInFp8AndCombineInTheActivationDtype) {
  // Payload of the dispatch over that of the combine, per MoE all-to-all of a decode step.
  auto ratio = [](const ModelSpec& m) {
    BatchShape b;
    b.decode_contexts.assign(64, 2048);
    double dispatch = 0, combine = 0;
    for (const CollectiveWork& c : batch_work(m, parse_parallel_plan("tp=1,dp=8,ep=8"), b).collectives) {
      if (c.kind == "all_to_all_dispatch") dispatch += c.count * c.payload_bytes;
      if (c.kind == "all_to_all_combine") combine += c.count * c.payload_bytes;
    }
    EXPECT_GT(combine, 0.0) << m.name;
    return dispatch / combine;
  };
  // DeepSeek V3's FP8 experts: one byte per element plus a float32 scale per 128, against BF16 back.
  EXPECT_NEAR(ratio(model("deepseek-v3")), (1.0 + 4.0 / 128) / 2.0, 1e-12);
  // Qwen3 235B's BF16 experts: both ways in BF16.
  EXPECT_NEAR(ratio(model("qwen3-235b-a22b")), 1.0, 1e-12);
}

TEST(BatchWork, WithoutAnAllToAllTheExpertsGatherEveryTokenAndReduceScatter) {
  // a2a=0: every EP rank gathers the whole step's tokens (64 x hidden 7168 in BF16) before each MoE
  // layer and reduce-scatters the same buffer after it; no dispatch or combine. The expert work of
  // the busiest rank is the all-to-all plan's.
  const ModelSpec& m = model("deepseek-v3");
  BatchShape b;
  b.decode_contexts.assign(64, 2048);
  const BatchWork a2a = batch_work(m, parse_parallel_plan("tp=1,dp=8,ep=8"), b);
  const BatchWork ag = batch_work(m, parse_parallel_plan("tp=1,dp=8,ep=8,a2a=0"), b);
  std::map<std::string, double> bytes;
  for (const CollectiveWork& c : ag.collectives) bytes[c.kind] += c.count * c.payload_bytes;
  EXPECT_EQ(bytes.count("all_to_all_dispatch") + bytes.count("all_to_all_combine"), 0U);
  EXPECT_DOUBLE_EQ(bytes.at("all_gather"), 58 * 64 * 7168 * 2.0);
  EXPECT_DOUBLE_EQ(bytes.at("reduce_scatter"), 58 * 64 * 7168 * 2.0);
  auto routed_flops = [](const BatchWork& w) {
    double f = 0;
    for (const OpWork& o : w.ops) f += o.op == "routed_experts" ? o.flops : 0.0;
    return f;
  };
  EXPECT_DOUBLE_EQ(routed_flops(ag), routed_flops(a2a));
  // The plan's text round-trips the exchange; a value other than 0 or 1 is an error.
  EXPECT_EQ(parse_parallel_plan("tp=1,dp=8,ep=8,a2a=0").to_string(), "tp=1,ep=8,pp=1,dp=8,a2a=0");
  EXPECT_TRUE(parse_parallel_plan("dp=8,ep=8,a2a=1").expert_all_to_all);
  EXPECT_THROW(parse_parallel_plan("dp=8,ep=8,a2a=2"), core::Error);
}

TEST(BatchWork, V41PrefillTokensSkipTheDecoderLayers) {
  const ModelSpec& m = model("deepseek-v4.1-flash");
  BatchShape p, d;
  p.prefill = {PrefillShape{1, 0, false}};
  d.decode_contexts = {0};
  const BatchWork wp = batch_work(m, parse_parallel_plan("tp=1"), p);
  double prefill_layers = 0;
  for (const OpWork& o : wp.ops) prefill_layers = std::max(prefill_layers, o.op == "attn_proj" ? o.layers : 0.0);
  EXPECT_EQ(prefill_layers, 20.0);
  const ParamCounts c = param_counts(m);
  double linear = 0;
  for (const OpWork& o : wp.ops) {
    if (o.op != "attn_core" && o.op != "indexer") linear += o.flops;
  }
  // Matmul FLOPs of one prompt token ~ 2 x active prefill layer params (norms aside).
  EXPECT_NEAR(linear / (2 * c.active_layers_prefill), 1.0, 0.01);
}

// The norms and the SwiGLU between the GEMMs are one memory-bound op a layer (norm_act): no
// FLOPs or weights, each token's activations read and written at BF16.
TEST(BatchWork, NormsAndActivationAreAMemoryBoundOpOfTheirOwn) {
  auto norm_act = [](const BatchWork& w) {
    std::vector<OpWork> out;
    for (const OpWork& o : w.ops) {
      if (o.op == "norm_act") out.push_back(o);
    }
    return out;
  };
  // Llama-3.1-8B at TP 2, a 100-token prompt: per token and layer two add-RMSNorms (read the
  // sub-block's output and the residual, write both: 2 x 4096 each way) and the SwiGLU of
  // the FFN's 7,168-wide slice (read gate and up, write the product), 2 B each.
  BatchShape b;
  b.prefill = {PrefillShape{100, 0, true}};
  const std::vector<OpWork> llama = norm_act(batch_work(model("llama-3.1-8b"), parse_parallel_plan("tp=2"), b));
  ASSERT_EQ(llama.size(), 1u);
  EXPECT_EQ(llama[0].flops, 0.0);
  EXPECT_EQ(llama[0].weight_read_bytes, 0.0);
  EXPECT_DOUBLE_EQ(llama[0].act_read_bytes, 32.0 * 100 * (4 * 4096 + 2 * 7168) * 2);
  EXPECT_DOUBLE_EQ(llama[0].act_write_bytes, 32.0 * 100 * (4 * 4096 + 7168) * 2);
  // mHC keeps hc_mult residual streams: each norm reads and writes all of them. V4.1 Flash
  // (hidden 5,120, four streams) moves 2 x 3 x 5120 more elements each way, per token and layer,
  // than the same model with one stream; its shared expert's SwiGLU is the same in both.
  const ModelSpec& v41 = model("deepseek-v4.1-flash");
  ModelSpec one = v41;
  one.hc_mult = 0;
  BatchShape d;
  d.decode_contexts = {100, 200};
  const ParallelPlan plan = parse_parallel_plan("tp=1");
  const std::vector<OpWork> four = norm_act(batch_work(v41, plan, d)), single = norm_act(batch_work(one, plan, d));
  ASSERT_EQ(four.size(), single.size());
  ASSERT_FALSE(four.empty());
  for (std::size_t i = 0; i < four.size(); ++i) {
    const double extra = four[i].layers * 2 * 2 * 3 * 5120 * 2;
    EXPECT_DOUBLE_EQ(four[i].act_read_bytes - single[i].act_read_bytes, extra) << four[i].layer_kind;
    EXPECT_DOUBLE_EQ(four[i].act_write_bytes - single[i].act_write_bytes, extra) << four[i].layer_kind;
    // The shared expert (2,304 wide) is the only SwiGLU: routed experts' is in the fused MoE call.
    EXPECT_DOUBLE_EQ(single[i].act_read_bytes, single[i].layers * 2 * (4 * 5120 + 2 * 2304) * 2);
  }
}

TEST(BatchWork, EngramOnHostIsReadOverTheHostLink) {
  const ModelSpec& m = model("deepseek-v4.1-flash");
  ParallelPlan plan = parse_parallel_plan("tp=2,ep=2");
  plan.engram_on_host = true;
  BatchShape b;
  b.decode_contexts = {10, 20, 30};
  EXPECT_DOUBLE_EQ(batch_work(m, plan, b).host_read_bytes(), 3 * 48.0 * 264);
}

// OpInfo::reads_contexts says which ops' work changes with the decode contexts (the decode
// fast-forward's shortcut trusts it): every model, its decodes' contexts shifted, changes
// exactly the rows of the ops it flags, on every layer kind that has one.
TEST(BatchWork, OnlyTheOpsThatReadContextsChangeWithThem) {
  for (const std::string& name : test::model_fixtures().names()) {
    const ModelSpec& m = model(name);
    BatchShape a, b;
    a.decode_contexts = {700, 5000, 90000};
    for (double c : a.decode_contexts) b.decode_contexts.push_back(c + 1000);
    const ParallelPlan plan = parse_parallel_plan("tp=1");
    const BatchWork wa = batch_work(m, plan, a), wb = batch_work(m, plan, b);
    ASSERT_EQ(wa.ops.size(), wb.ops.size());
    int changed = 0;
    for (std::size_t i = 0; i < wa.ops.size(); ++i) {
      const OpWork& x = wa.ops[i];
      const OpWork& y = wb.ops[i];
      ASSERT_EQ(x.op, y.op);
      const auto op = std::find_if(kOps.begin(), kOps.end(), [&](const OpInfo& o) { return o.name == x.op; });
      ASSERT_NE(op, kOps.end()) << x.op;
      const bool differs = x.flops != y.flops || x.weight_read_bytes != y.weight_read_bytes ||
                           x.kv_read_bytes != y.kv_read_bytes || x.kv_write_bytes != y.kv_write_bytes ||
                           x.act_read_bytes != y.act_read_bytes || x.act_write_bytes != y.act_write_bytes ||
                           x.host_read_bytes != y.host_read_bytes;
      if (!op->reads_contexts) {
        EXPECT_FALSE(differs) << name << " " << x.layer_kind << " " << x.op;
      }
      changed += differs ? 1 : 0;
    }
    EXPECT_GT(changed, 0) << name << ": some attention reads the contexts";
  }
}

}  // namespace
}  // namespace agentsim::wl
