#include <gtest/gtest.h>

#include "tests/workloads/model/model_fixtures.hpp"

namespace agentsim::wl {
namespace {

using test::model;

TEST(ModelKv, MlaLatentAtBf16) {
  // 61 layers x (512 latent + 64 rope) x 2 B.
  EXPECT_DOUBLE_EQ(model("deepseek-v3").kv_bytes_per_token(), 61.0 * 576 * 2);
  EXPECT_DOUBLE_EQ(model("deepseek-v3").kv_bytes_per_token(), 70272.0);
  EXPECT_DOUBLE_EQ(model("kimi-k2").kv_bytes_per_token(), 70272.0);
}

TEST(ModelKv, Llama70bGqa) {
  EXPECT_DOUBLE_EQ(model("llama-3.1-70b").kv_bytes_per_token(), 327680.0);  // 80 x 2 x 8 x 128 x 2 B
}

TEST(ModelKv, GptOssSlidingLayersAreCapped) {
  const ModelSpec& m = model("gpt-oss-120b");
  // Growing: 18 full layers x 2 x 8 x 64 x 2 B = 36,864 B/token.
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), 36864.0);
  // Sliding layers hold at most 128 tokens: 18 x 128 x 2048 B = 4,718,592 B.
  EXPECT_DOUBLE_EQ(m.kv_bytes_for_context(100000), 36864.0 * 100000 + 4718592.0);
  EXPECT_DOUBLE_EQ(m.kv_bytes_for_context(100), 73728.0 * 100);  // inside the window every layer grows
}

TEST(ModelKv, SparseIndexerKeysAreAdded) {
  // V3.2: 70,272 B latent + 61 x 132 B FP8 indexer keys (assumed layout).
  EXPECT_DOUBLE_EQ(model("deepseek-v3.2").kv_bytes_per_token(), 70272.0 + 8052.0);
}

TEST(ModelKv, V41FlashUsesThePublishedGlobalKv) {
  const ModelSpec& m = model("deepseek-v4.1-flash");
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), 890.0);
  // Plus a 128-token window ring per layer: 40 x 128 x 512 x 0.5 B (FP4).
  EXPECT_DOUBLE_EQ(m.kv_bytes_for_context(1000) - 890.0 * 1000, 40.0 * 128 * 512 * 0.5);
}

TEST(ModelKv, KimiK3HasConstantRecurrentState) {
  const ModelSpec& m = model("kimi-k3");
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), 24.0 * 576 * 2);  // 24 gated-MLA layers
  EXPECT_DOUBLE_EQ(m.kv_bytes_for_context(0), 69.0 * 96 * 128 * 128 * 4);  // KDA FP32 state
}

TEST(ModelKv, SparseAttentionWorkIsCappedButTheIndexerGrows) {
  const ModelSpec& m = model("deepseek-v3.2");
  const double a = m.attention_flops_per_token(100000), b = m.attention_flops_per_token(200000);
  // Core attention is capped at 2048 tokens; only the indexer (2 x 64 x 128 per token per layer) grows.
  EXPECT_DOUBLE_EQ(b - a, 61.0 * 2 * 64 * 128 * 100000);
}

}  // namespace
}  // namespace agentsim::wl
