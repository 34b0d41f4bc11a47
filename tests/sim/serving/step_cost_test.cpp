#include "sim/serving/step_cost.hpp"

#include <gtest/gtest.h>

#include "experiments/catalog.hpp"

namespace agentsim::serving {
namespace {

struct Fixture : ::testing::Test {
  exp::Catalog catalog = exp::load_catalog(AGENTSIM_SOURCE_DIR);
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-70b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  StepCostOptions opt{8, hw::Efficiency{1.0, 1.0, 1.0}, 1e-3};
};

// Hand values for Llama-3.1-70B (BF16) on 8 x H200 (989 TFLOP/s, 4.8 TB/s,
// NVLink 450 GB/s per direction, 1.5 us per hop per the catalog):
//   linear FLOPs/token = 2 x 80 x (150,994,944 + 704,643,072) = 136,902,082,560
//   LM head FLOPs/token = 2 x 128,256 x 8,192 = 2,101,346,304
//   weights = 70,553,706,496 params x 2 B; KV = 327,680 B/token
constexpr double kLinear = 136902082560.0;
constexpr double kLmHead = 2101346304.0;
constexpr double kWeights = 141107412992.0;
constexpr double kKv = 327680.0;
// Since the per-op model (docs/step-cost.md) HBM bytes per device are what the
// ops read, not the whole checkpoint: the embedding table is replaced by the
// rows looked up, norms (161 x 8192 BF16) are not counted, and each matmul op
// reads and writes its activations on every device (not split over tp).
constexpr double kEmbed = 128256.0 * 8192 * 2;
constexpr double kNorms = 161.0 * 8192 * 2;
double op_bytes(double tokens, double kv_bytes) {
  return (kWeights - kEmbed - kNorms) / 8 + tokens * 8192 * 2 * 2  // embedding rows read + written
         + 80 * 2 * 2 * tokens * 8192 * 2                           // attn_proj and dense_ffn activations in + out
         + kv_bytes / 8 + 128256 * 4.0 / 8;                         // KV; FP32 logits of one sampled token
}

double ring(double bytes) { return 14 * 1.5e-6 + 14 * (bytes / 8) / 450e9; }

TEST_F(Fixture, PrefillChunkOfAThousandTokens) {
  StepBatch b;
  b.prefills.push_back(PrefillChunk{1000, 0, true});
  const StepCost c = step_cost(b, model, system, opt);
  const double flops = (kLinear * 1000 + 4.0 * 80 * 64 * 128 * (1000.0 * 1001 / 2) + kLmHead) / 8;
  EXPECT_DOUBLE_EQ(c.flops, flops);
  EXPECT_DOUBLE_EQ(c.compute_s, flops / 989e12);
  // KV: the chunk's keys/values are written and read back by tiled attention: 2 x 1000 x kKv.
  EXPECT_NEAR(c.memory_s, op_bytes(1000, 2 * kKv * 1000) / 4.8e12, 1e-12);
  EXPECT_TRUE(c.compute_bound);
  EXPECT_EQ(c.allreduces, 160);
  EXPECT_DOUBLE_EQ(c.allreduce_bytes, 1000 * 8192 * 2.0);
  EXPECT_NEAR(c.comm_latency_s + c.comm_transfer_s, 160 * ring(1000 * 8192 * 2.0), 1e-12);
  // 17.469 ms compute + 160 all-reduces x (14 x 1.5 us + 14 x 2.048 MB / 8 / 450 GB/s) + 1 ms, plus
  // the per-op roofline: memory-bound ops (attention core at 4 us floors...) add to the sum of
  // maxima, which the model books as overhead above max(compute, memory).
  EXPECT_NEAR(c.total_s, c.compute_s + c.comm_latency_s + c.comm_transfer_s + c.overhead_s, 1e-15);
  EXPECT_GE(c.total_s, 0.03202367678402337);
  EXPECT_GE(c.overhead_s, 1e-3);
}

TEST_F(Fixture, DecodeStepIsMemoryBound) {
  StepBatch b;
  for (int i = 0; i < 4; ++i) b.decodes.push_back(DecodeItem{2000});
  const StepCost c = step_cost(b, model, system, opt);
  EXPECT_FALSE(c.compute_bound);
  EXPECT_DOUBLE_EQ(c.kv_read_bytes, kKv * 2000 * 4 / 8);
  // 4 sampled tokens: logits 4 x 128256 x 4 B / 8 (op_bytes counts one).
  EXPECT_NEAR(c.memory_s, (op_bytes(4, kKv * 2000 * 4 + kKv * 4) + 3 * 128256 * 4.0 / 8) / 4.8e12, 1e-12);
  // Each attention-core op reads 2000 x 4 x 4096 B per layer (1.6 us at 4.8 TB/s) under its 4 us
  // launch floor: 80 x (4 us - 1.365 us) of floor above the roofline joins the 1 ms overhead.
  EXPECT_NEAR(c.comm_latency_s + c.comm_transfer_s, 160 * ring(4 * 8192 * 2.0), 1e-12);
  EXPECT_NEAR(c.total_s, c.memory_s + 160 * ring(4 * 8192 * 2.0) + c.overhead_s, 1e-12);
  EXPECT_GT(c.overhead_s, 1e-3 + 80 * (4e-6 - 2000 * 4 * 4096 / 4.8e12));
}

TEST_F(Fixture, MoreTokensNeverCostLess) {
  double prev = 0;
  for (int n = 1; n <= 4096; n *= 2) {
    StepBatch b;
    b.prefills.push_back(PrefillChunk{n, 1000, true});
    for (int i = 0; i < n / 8; ++i) b.decodes.push_back(DecodeItem{5000});
    const double t = step_cost(b, model, system, opt).total_s;
    EXPECT_GT(t, prev) << n;
    prev = t;
  }
}

TEST_F(Fixture, EmptyBatchCostsNothing) { EXPECT_EQ(step_cost(StepBatch{}, model, system, opt).total_s, 0.0); }

}  // namespace

// The engine's totals-only path must give step_cost's totals bit for bit, on
// dense and MoE models (several layer kinds), with pipeline micro-batches,
// two-batch overlap, host KV loads and speculative decoding.
TEST_F(Fixture, TotalsOnlyPathMatchesFullCostExactly) {
  StepBatch b;
  b.prefills = {PrefillChunk{512, 1000, true}, PrefillChunk{300, 0, false}};
  b.decodes = {DecodeItem{4000}, DecodeItem{17}, DecodeItem{900}};
  auto same = [&](const wl::ModelSpec& m, const hw::System& s, const StepCostOptions& o) {
    const StepCost full = step_cost(b, m, s, o), fast = step_cost_totals(b, m, s, o);
    EXPECT_EQ(fast.total_s, full.total_s) << m.name;
    EXPECT_EQ(fast.compute_s, full.compute_s) << m.name;
    EXPECT_EQ(fast.memory_s, full.memory_s) << m.name;
    EXPECT_EQ(fast.comm_latency_s, full.comm_latency_s) << m.name;
    EXPECT_EQ(fast.comm_transfer_s, full.comm_transfer_s) << m.name;
    EXPECT_EQ(fast.overhead_s, full.overhead_s) << m.name;
    EXPECT_EQ(fast.flops, full.flops) << m.name;
    EXPECT_EQ(fast.allreduces, full.allreduces) << m.name;
    EXPECT_TRUE(fast.breakdown.ops.empty());
    EXPECT_FALSE(full.breakdown.ops.empty());
  };
  same(model, system, opt);
  const hw::System& gb = catalog.systems.get("gb300-nvl72");
  for (const char* name : {"gpt-oss-120b", "deepseek-v3.2", "llama-3.1-8b"}) {
    StepCostOptions o = opt;
    same(catalog.models.get(name), gb, o);
    o.overlap = Overlap::kTwoBatch;
    o.host_kv_load_tokens = 5000;
    same(catalog.models.get(name), gb, o);
    o.spec.draft_tokens = 2;
    same(catalog.models.get(name), gb, o);
    wl::ParallelPlan pp;
    pp.tp = 4;
    pp.pp = 2;
    o.plan = pp;
    o.micro_batches = 2;
    same(catalog.models.get(name), gb, o);
  }
}

}  // namespace agentsim::serving
