#include <gtest/gtest.h>

#include "tests/workloads/model/model_fixtures.hpp"
#include "workloads/model/param_counts.hpp"

namespace agentsim::wl {
namespace {

using test::model;

double rel(double computed, double published) { return computed / published - 1.0; }

// Total (main model, MTP excluded) within 1% of the published figure.
TEST(ModelParams, TotalsMatchPublishedFigures) {
  for (const char* name : {"deepseek-v3", "deepseek-r1", "glm-4.5", "qwen3-235b-a22b", "gpt-oss-120b",
                           "llama-3.1-70b", "llama-3.1-8b"}) {
    const ModelSpec& m = model(name);
    EXPECT_NEAR(rel(param_counts(m).total(), m.published_total_params), 0.0, 0.01) << name;
  }
}

// Kimi K2: the checkpoint's shape gives 1.0264T, which is 1.31% below the tech
// report's "1.04T" (no counting convention found reproduces it: one more MoE
// layer's worth, ~17B, is missing; see docs/models.md). The released
// checkpoint's own parameter count, 1026.5B on Hugging Face, is matched.
TEST(ModelParams, KimiK2MatchesTheCheckpointCountNotTheReportedOne) {
  const ModelSpec& m = model("kimi-k2");
  const double total = param_counts(m).total();
  EXPECT_NEAR(rel(total, m.published_total_params_checkpoint), 0.0, 0.01);
  EXPECT_NEAR(rel(total, 1.04e12), -0.0131, 0.001);
  EXPECT_NEAR(rel(param_counts(m).active(Phase::kDecode), 32e9), 0.0, 0.01);
}

// Active per token within 1%, each under the convention its vendor uses.
TEST(ModelParams, ActiveMatchesPublishedFiguresUnderTheVendorsConvention) {
  struct Case {
    const char* name;
    double published;
    EmbeddingConvention convention;
  };
  const Case cases[] = {
      {"deepseek-v3", 36.6e9, EmbeddingConvention::kHeadOnly},  // 37B is 36.6B rounded
      {"kimi-k2", 32e9, EmbeddingConvention::kHeadOnly},
      {"glm-4.5", 32e9, EmbeddingConvention::kNeither},
      {"qwen3-235b-a22b", 22e9, EmbeddingConvention::kEmbeddingAndHead},
      {"gpt-oss-120b", 5.1e9, EmbeddingConvention::kHeadOnly},
      {"llama-3.1-70b", 70.6e9, EmbeddingConvention::kEmbeddingAndHead},
      {"llama-3.1-8b", 8.0e9, EmbeddingConvention::kEmbeddingAndHead},
      {"deepseek-v4.1-flash", 16e9, EmbeddingConvention::kNeither},
  };
  for (const Case& c : cases) {
    const ParamCounts p = param_counts(model(c.name));
    EXPECT_NEAR(rel(p.active(Phase::kDecode, c.convention), c.published), 0.0, 0.01) << c.name;
  }
}

TEST(ModelParams, DeepSeekV3ByHand) {
  const ParamCounts p = param_counts(model("deepseek-v3"));
  // Routed experts: 58 MoE layers x 256 experts x 3 x 7168 x 2048.
  EXPECT_DOUBLE_EQ(p.routed_experts, 58.0 * 256 * 3 * 7168 * 2048);
  // MLA per layer: q_a 7168x1536 + 1536 + q_b 1536x128x192 + kv_a 7168x576 + 512
  // + kv_b 512x128x256 + o 128x128x7168.
  const double mla = 7168.0 * 1536 + 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512 + 512.0 * 128 * 256 +
                     128.0 * 128 * 7168;
  EXPECT_DOUBLE_EQ(p.attention, 61 * mla);
  EXPECT_NEAR(p.mtp, 11.6e9, 0.05e9);  // 671B + MTP = 682.6B of the 685B checkpoint (rest: embeddings)
}

// V4.1-Flash is phase-asymmetric: prompt tokens run the 20 encoder layers.
TEST(ModelParams, DeepSeekV41FlashActivatesHalfAsMuchForPrefill) {
  const ModelSpec& m = model("deepseek-v4.1-flash");
  const ParamCounts p = param_counts(m);
  EXPECT_NEAR(rel(p.total(), 552e9), 0.0, 0.01);
  EXPECT_NEAR(rel(p.active(Phase::kPrefill, EmbeddingConvention::kNeither), 8e9), 0.0, 0.01);
  EXPECT_DOUBLE_EQ(p.active_layers_prefill * 2, p.active_layers_decode);  // 20 of 40 identical layers
}

TEST(ModelParams, NewerModelsAreWithinTwoPercentOfTheirHeadlines) {
  // Not gated at 1% by the issue: V4-Pro's 1.6T rounds 1.573T, K3's 2.8T rounds 2.78T.
  for (const char* name : {"deepseek-v3.2", "glm-5.2", "deepseek-v4-pro", "kimi-k3"}) {
    const ModelSpec& m = model(name);
    EXPECT_NEAR(rel(param_counts(m).total(), m.published_total_params), 0.0, 0.02) << name;
  }
}

}  // namespace
}  // namespace agentsim::wl
