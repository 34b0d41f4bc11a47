// The model cards whose drafter the agentic benchmark pins to a golden acceptance curve
// (workloads/catalog/acceptance/PROVENANCE.md) give that curve: the card's first k positions
// accept AL(k) - 1 drafts a step on average, for every k up to its draft count.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/core/yaml_node.hpp"
#include "workloads/model/model_decoder.hpp"

namespace agentsim::wl {
namespace {

const std::filesystem::path kRoot = AGENTSIM_SOURCE_DIR;

// 1 + sum over positions i < k of p_1 x ... x p_i: the mean tokens a verify step emits when the
// drafter proposes its first k positions.
double acceptance_length(const SpeculativeSpec& s, int k) {
  double run = 1, out = 1;
  for (int i = 0; i < k; ++i) out += run *= s.acceptance.at(static_cast<std::size_t>(i));
  return out;
}

struct Pinned {
  const char* card;   // workloads/catalog/models/<card>.yaml
  const char* curve;  // workloads/catalog/acceptance/<curve>.yaml
  const char* key;    // the model as the curve names it
};

constexpr Pinned kPinned[] = {
    {"deepseek-v4-pro", "dsv4_mtp", "deepseek-v4-pro"},
    {"deepseek-v4.1-flash", "dsv4-pro-0813-dspark", "deepseek-v4-pro-0813"},
    {"glm-5.2", "glm5.2_mtp", "glm-5.2-fp8"},
};

TEST(GoldenAcceptance, EachPinnedCardGivesTheBenchmarksAcceptanceLengthAtEveryDraftCount) {
  for (const Pinned& p : kPinned) {
    SCOPED_TRACE(p.card);
    const ModelSpec m =
        decode_model(core::YamlNode::load_file((kRoot / "workloads/catalog/models" / (std::string(p.card) + ".yaml")).string()));
    const core::YamlNode curve =
        core::YamlNode::load_file((kRoot / "workloads/catalog/acceptance" / (std::string(p.curve) + ".yaml")).string())
            .at(p.key)
            .at("thinking_on");
    ASSERT_TRUE(m.speculative.present());
    ASSERT_EQ(m.speculative.acceptance.size(), static_cast<std::size_t>(m.speculative.draft_tokens));
    for (int k = 1; k <= m.speculative.draft_tokens; ++k) {
      const double golden = curve.at(std::to_string(k)).as_number();
      // 0.005: half the last digit the curves publish (AL to two decimals).
      EXPECT_NEAR(acceptance_length(m.speculative, k), golden, 0.005) << "draft " << k;
    }
  }
}

}  // namespace
}  // namespace agentsim::wl
