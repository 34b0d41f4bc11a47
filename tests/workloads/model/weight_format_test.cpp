// Weight formats: names, the block scales each carries, their bytes, and a format given over a
// model card's (explain --weights, a measured row's precision, a card's own precision section).
#include "workloads/model/weight_format.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "tests/support/file_text.hpp"
#include "tests/workloads/model/model_fixtures.hpp"
#include "workloads/model/param_counts.hpp"
#include "workloads/model/model_decoder.hpp"

namespace agentsim::wl {
namespace {
namespace fs = std::filesystem;

TEST(WeightFormat, NamesCarryTheirBlockScales) {
  EXPECT_EQ(parse_weight_format("nvfp4")->block, 16);
  EXPECT_EQ(parse_weight_format("mxfp4")->block, 32);
  EXPECT_EQ(parse_weight_format("mxfp4")->dtype, hw::DType::kFp4);
  EXPECT_FALSE(parse_weight_format("fp4")->block.has_value()) << "a bare fp4 names no scaling";
  EXPECT_FALSE(parse_weight_format("fp8")->block.has_value());
  EXPECT_EQ(parse_weight_format("bf16")->block, 0);
  EXPECT_FALSE(parse_weight_format("fp5").has_value());
  // Bytes per weight: 4 bits plus a 1-byte scale per block; FP8 a 4-byte scale per 128 x 128 tile.
  EXPECT_DOUBLE_EQ(bytes_per_weight({hw::DType::kFp4, 16}), 0.5 + 1.0 / 16);
  EXPECT_DOUBLE_EQ(bytes_per_weight({hw::DType::kFp4, 32}), 0.5 + 1.0 / 32);
  EXPECT_DOUBLE_EQ(bytes_per_weight({hw::DType::kFp8, 128}), 1 + 4.0 / (128 * 128));
  EXPECT_DOUBLE_EQ(bytes_per_weight({hw::DType::kBf16, 0}), 2);
  EXPECT_EQ(format_name({hw::DType::kFp4, 16}), "nvfp4");
  EXPECT_EQ(format_name({hw::DType::kFp4, 32}), "mxfp4");
  EXPECT_EQ(format_name({hw::DType::kFp8, 128}), "fp8");
  EXPECT_EQ(describe({hw::DType::kFp4, 16}), "nvfp4 (a 1-byte scale per 16)");
  EXPECT_EQ(describe({hw::DType::kFp8, 128}), "fp8 (a 4-byte scale per 128 x 128 tile)");
  EXPECT_EQ(describe({hw::DType::kBf16, 32}), "bf16 (no scales)");
}

TEST(WeightFormat, AFormatOverACardsKeepsOnlyTheScalesThatStillApply) {
  const WeightFormat r1_experts{hw::DType::kFp8, 128};  // DeepSeek-R1's 128 x 128 FP8 tiles
  const WeightFormat nv = reformat("nvfp4", r1_experts);
  EXPECT_EQ(nv.dtype, hw::DType::kFp4);
  EXPECT_EQ(nv.block, 16) << "NVFP4's own scales, not one per 128";
  EXPECT_EQ(reformat("fp8", r1_experts).block, 128);
  EXPECT_EQ(reformat("fp8", {hw::DType::kBf16, 0}).block, 0) << "FP8 over BF16: one scale per tensor";
  EXPECT_EQ(reformat("fp4", {hw::DType::kFp4, 32}).block, 32) << "gpt-oss's MXFP4 experts stay MXFP4";
  EXPECT_EQ(reformat("bf16", r1_experts).block, 0);
  try {
    reformat("fp4", r1_experts);
    ADD_FAILURE() << "a bare fp4 over FP8 weights was accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvfp4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mxfp4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(reformat("int4", r1_experts), core::Error);
}

// Formats given over a card's, as explain's flags and measured rows give them: a dense model's
// experts format names its FFN weights; each error names the group it is about.
TEST(WeightFormat, OverridesGoThroughOneRuleForEveryCaller) {
  PrecisionSpec r1 = test::model("deepseek-r1").precision;
  r1.override_formats("", "nvfp4", "fp8", true);
  EXPECT_EQ(r1.experts_format().block, 16);
  EXPECT_EQ(r1.weights_format().block, 128) << "attention keeps the card's FP8 tiles";
  EXPECT_EQ(r1.kv_cache, hw::DType::kFp8);
  PrecisionSpec llama = test::model("llama-3.1-70b").precision;
  llama.override_formats("", "nvfp4", "", false);
  EXPECT_EQ(format_name(llama.weights_format()), "nvfp4") << "a dense model's FFN is its weights";
  EXPECT_EQ(format_name(llama.experts_format()), "nvfp4");
  const auto error = [](std::string_view w, std::string_view e, std::string_view kv) {
    PrecisionSpec p = test::model("deepseek-r1").precision;
    try {
      p.override_formats(w, e, kv, true);
    } catch (const core::Error& err) {
      return std::string(err.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("fp5", "", "").rfind("weights: unknown format 'fp5'", 0), 0u) << error("fp5", "", "");
  EXPECT_EQ(error("", "fp4", "").rfind("experts: fp4 over fp8 weights", 0), 0u) << error("", "fp4", "");
  EXPECT_EQ(error("", "", "fp9").rfind("kv-cache: unknown dtype 'fp9'", 0), 0u) << error("", "", "fp9");
}

// A card's precision section: nvfp4 / mxfp4 name their group's block, other formats take
// block_scale, so one card can hold MXFP4 experts beside FP8 attention in 128 x 128 tiles.
TEST(WeightFormat, ACardsGroupsEachKeepTheirOwnBlock) {
  std::string text = test_support::slurp(fs::path(AGENTSIM_SOURCE_DIR) / "tests/workloads/model/fixtures/deepseek-r1.yaml");
  const std::string fp8 = "experts: fp8";
  const auto at = text.find(fp8);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, fp8.size(), "experts: mxfp4");
  const fs::path p = fs::temp_directory_path() / "agentsim_weight_format_r1.yaml";
  std::ofstream(p) << text;
  const ModelSpec m = decode_model(core::YamlNode::load_file(p.string()));
  fs::remove(p);
  EXPECT_EQ(m.precision.experts, hw::DType::kFp4);
  EXPECT_EQ(m.precision.experts_block, 32);
  EXPECT_EQ(m.precision.weights_block, 128);
  const ModelSpec& card = test::model("deepseek-r1");
  EXPECT_EQ(card.precision.experts_block, 128);
  // Only the routed experts change: 0.5 + 1/32 bytes a weight where the card's FP8 tiles hold 1 + 4 / 128^2.
  const double experts = param_counts(card).routed_experts;
  EXPECT_NEAR(card.weight_bytes() - m.weight_bytes(), experts * ((1 + 4.0 / (128 * 128)) - (0.5 + 1.0 / 32)),
              1e-9 * card.weight_bytes());
}

}  // namespace
}  // namespace agentsim::wl
