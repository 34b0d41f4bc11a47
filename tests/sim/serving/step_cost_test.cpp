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

double ring(double bytes) { return 14 * 1.5e-6 + 14 * (bytes / 8) / 450e9; }

TEST_F(Fixture, PrefillChunkOfAThousandTokens) {
  StepBatch b;
  b.prefills.push_back(PrefillChunk{1000, 0, true});
  const StepCost c = step_cost(b, model, system, opt);
  const double flops = (kLinear * 1000 + 4.0 * 80 * 64 * 128 * (1000.0 * 1001 / 2) + kLmHead) / 8;
  EXPECT_DOUBLE_EQ(c.flops, flops);
  EXPECT_DOUBLE_EQ(c.compute_s, flops / 989e12);
  EXPECT_DOUBLE_EQ(c.memory_s, (kWeights + kKv * 1000) / 8 / 4.8e12);
  EXPECT_TRUE(c.compute_bound);
  EXPECT_EQ(c.allreduces, 160);
  EXPECT_DOUBLE_EQ(c.allreduce_bytes, 1000 * 8192 * 2.0);
  EXPECT_NEAR(c.comm_latency_s + c.comm_transfer_s, 160 * ring(1000 * 8192 * 2.0), 1e-12);
  // 17.469 ms compute + 160 all-reduces x (14 x 1.5 us + 14 x 2.048 MB / 8 / 450 GB/s) + 1 ms
  EXPECT_NEAR(c.total_s, 0.03202367678402337, 1e-12);
}

TEST_F(Fixture, DecodeStepIsMemoryBound) {
  StepBatch b;
  for (int i = 0; i < 4; ++i) b.decodes.push_back(DecodeItem{2000});
  const StepCost c = step_cost(b, model, system, opt);
  EXPECT_FALSE(c.compute_bound);
  EXPECT_DOUBLE_EQ(c.kv_read_bytes, kKv * 2000 * 4 / 8);
  EXPECT_DOUBLE_EQ(c.memory_s, (kWeights + kKv * 2000 * 4 + kKv * 4) / 8 / 4.8e12);
  EXPECT_NEAR(c.total_s, c.memory_s + 160 * ring(4 * 8192 * 2.0) + 1e-3, 1e-12);
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
