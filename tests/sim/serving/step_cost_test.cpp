#include "sim/serving/step_cost.hpp"

#include <gtest/gtest.h>

#include "tests/sim/serving/catalog_fixtures.hpp"

namespace agentsim::serving {
namespace {

struct Fixture : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
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
// norm_act per token and layer: two residual-add RMSNorms (read 2 x 8192, write 2 x 8192 each)
// and the SwiGLU of the FFN's TP slice (read 2 x 3,584, write 3,584), BF16:
// (4 x 8192 + 2 x 3584) x 2 + (4 x 8192 + 3584) x 2 = 152,576 B.
constexpr double kNormAct = 152576.0;
constexpr double kEmbed = 128256.0 * 8192 * 2;
constexpr double kNorms = 161.0 * 8192 * 2;
double op_bytes(double tokens, double kv_bytes) {
  return (kWeights - kEmbed - kNorms) / 8 + tokens * 8192 * 2 * 2  // embedding rows read + written
         + 80 * 2 * 2 * tokens * 8192 * 2                           // attn_proj and dense_ffn activations in + out
         + 80 * tokens * kNormAct                                   // norms and SwiGLU
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
  // The step total by hand, op by op (docs/step-cost.md: each op costs max(FLOPs / peak, bytes / bw,
  // kernels x 4 us), ops add, then the exposed all-reduces and the 1 ms step overhead), per device:
  //   attn_proj  2 x 150,994,944 x 1000 / 8 = 37.75 GFLOP / 989 TFLOP/s      = 38.1686 us (compute;
  //              its bytes 37.7 MB weights + 32.8 MB activations = 14.7 us, floor 4 x 4 us = 16 us)
  //   attn_core  4 x 64 x 128 x 500,500 / 8 = 2.05 GFLOP = 2.07 us; KV 2 x 1000 x 4096 B / 8
  //              = 1.02 MB = 0.21 us; one kernel: the 4 us floor binds                  = 4 us
  //   dense_ffn  2 x 704,643,072 x 1000 / 8 = 176.16 GFLOP / 989 TFLOP/s      = 178.1201 us (compute)
  //   norm_act   1000 x 152,576 B = 152.58 MB / 4.8 TB/s (no kernels of its own) = 31.7867 us
  //   80 layers x (38.1686 + 4 + 178.1201 + 31.7867) us                      = 20,166.03 us
  //   embedding  1000 rows x 8192 x 2 B read + written = 32.77 MB / 4.8 TB/s  = 6.8267 us
  //   lm_head    128,256 x 8192 x 2 B / 8 + 128,256 x 4 B / 8 = 262.73 MB / 4.8 TB/s = 54.7359 us
  //   all-reduce 160 x (14 x 1.5 us + 14 x 16.384 MB / 8 / 450 GB/s = 84.7156 us) = 13,554.49 us
  //   overhead   1,000 us
  //   total = 20,166.03 + 6.83 + 54.74 + 13,554.49 + 1,000 = 34,782.08 us
  EXPECT_NEAR(c.total_s, 80 * (38.16859049545e-6 + 4e-6 + 178.12008897877e-6 + 31.78666666667e-6) + 6.82666666667e-6 +
                             54.73592e-6 + 160 * 84.71555555556e-6 + 1e-3,
              1e-12);
  EXPECT_NEAR(c.total_s, 34.78207916e-3, 1e-10);
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
  // The step total by hand, op by op, per device (max of compute, HBM and kernels x 4 us):
  //   attn_proj  weights 37,748,736 B + activations 131,072 B = 7.89 us at 4.8 TB/s; compute 0.15 us;
  //              4 kernels x 4 us floor binds                                    = 16 us
  //   attn_core  KV (4 x 2000 + 4 written) x 4096 B / 8 = 4.10 MB = 0.85 us; floor = 4 us
  //   dense_ffn  weights 704,643,072 x 2 B / 8 + 131,072 B = 176.29 MB / 4.8 TB/s = 36.7275 us
  //              (floor 3 x 4 = 12 us, compute 0.71 us)
  //   norm_act   4 x 152,576 B = 0.61 MB / 4.8 TB/s (no floor)                  = 0.1271 us
  //   80 layers x (16 + 4 + 36.7275 + 0.1271) us                                = 4,548.37 us
  //   embedding  131,072 B = 0.03 us under its 4 us floor                       = 4 us
  //   lm_head    262,668,288 B + 4 x 128,256 x 4 B / 8 = 262.92 MB / 4.8 TB/s = 54.776 us
  //   all-reduce 160 x (14 x 1.5 us + 14 x 65,536 B / 8 / 450 GB/s = 21.2549 us) = 3,400.78 us
  //   overhead   1,000 us
  //   total = 4,548.37 + 4 + 54.78 + 3,400.78 + 1,000 = 9,007.92 us
  EXPECT_NEAR(c.total_s,
              80 * (16e-6 + 4e-6 + 36.72746666667e-6 + 0.12714666667e-6) + 4e-6 + 54.776e-6 + 160 * 21.25486222222e-6 +
                  1e-3,
              1e-12);
  EXPECT_NEAR(c.total_s, 9.00792302e-3, 1e-10);
  // The floors above the roofline (attn_proj 16 - 7.89 us, attn_core 4 - 0.85 us per layer,
  // embedding ~4 us, lm_head 0) and the 1 ms are the overhead.
  EXPECT_NEAR(c.overhead_s, 1e-3 + 80 * ((16e-6 - 37879808 / 4.8e12) + (4e-6 - 4098048 / 4.8e12)) +
                                (4e-6 - 131072 / 4.8e12),
              1e-12);
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

}  // namespace agentsim::serving
