// Every data value in the model catalog cites its source, says how it is derived from cited
// values, or is marked as an assumption with its reasoning, by the rule in
// tests/support/citation_rule.hpp (docs/hardware.md "Citations"): a source names a URL, a
// repository path, a shared/reference section or a named primary document (or refers back to
// one cited earlier in the file); a local file it names must exist.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/citation_rule.hpp"

namespace {
namespace ts = agentsim::test_support;

TEST(ModelCatalog, EveryDataLineCitesASourceOrSaysAssumed) {
  const ts::CitationScan scan =
      ts::scan_citations(AGENTSIM_SOURCE_DIR, {"workloads/catalog/models"}, {"name", "display_name"});
  for (const auto& f : scan.failures) ADD_FAILURE() << f.where << ": " << f.why << "\n  " << f.line;
  EXPECT_GT(scan.data_lines, 13 * 15) << "13 models of 15+ data lines each";
  EXPECT_GT(scan.sourced, scan.data_lines / 2);
  EXPECT_GT(scan.derived, 0);
  EXPECT_GT(scan.assumed, 0);
}

// The rule itself, on lines like those the catalogs had before it (issue #18 item 6).
std::string check(const std::string& comment, bool earlier = false, const std::set<std::string>& names = {}) {
  return ts::check_citation(comment, AGENTSIM_SOURCE_DIR, earlier, names);
}

TEST(CitationRule, AcceptsUrlsRepositoryPathsReferenceSectionsAndNamedDocuments) {
  EXPECT_EQ(check(" source: https://glennklockwood.com/garden/processors/B300 (288 GB)"), "");
  EXPECT_EQ(check(" source (3rd-party): fibermall.com/blog/?p=15541 (8 TB/s)"), "");
  EXPECT_EQ(check(" source: github mlcommons/inference_results_v4.1 closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json"),
            "");
  EXPECT_EQ(check(" source: num_hidden_layers; HF deepseek-ai/DeepSeek-V3 config.json"), "");
  EXPECT_EQ(check(" source: shared/reference/hardware-and-models.md §B2"), "");
  EXPECT_EQ(check(" source: arXiv 2605.11999 measured on H200"), "");
  EXPECT_EQ(check(" source: NVIDIA A100 datasheet (BF16 312 TFLOP/s)"), "");
  EXPECT_EQ(check(" derived: 80 x 2 x 8 x 128 x 2 B"), "");
  EXPECT_EQ(check(" assumed: BF16 KV, the activation dtype vLLM stores by default"), "");
  // A local path that exists.
  EXPECT_EQ(check(" assumed: same as Kimi K2 (workloads/catalog/models/kimi-k2.yaml), no K3 figure"), "");
  // Back-references: `same`, or a word of an earlier line's address.
  EXPECT_EQ(check(" source: hidden_size; same config", true), "");
  EXPECT_EQ(check(" source: kv_lora 512 per colibri", true, {"colibri", "justvugg"}), "");
}

TEST(CitationRule, RejectsWhatTheOldCatalogsHad) {
  // A file that does not exist, even after a real URL.
  EXPECT_NE(check(" source: https://verda.com/blog/gb300-nvl72-architecture (8 TB/s) -> see NOTES.md"), "");
  EXPECT_NE(check(" assumed: same as Kimi K2 (not found in public material read here); see NOTES.md"), "");
  // An assumption labelled as a source; a source with nothing to look up.
  EXPECT_NE(check(" source: serving default (FP8 KV optional)"), "");
  EXPECT_NE(check(" source: dense model"), "");
  EXPECT_NE(check(" source (3rd-party): introl.com"), "");
  EXPECT_NE(check(" source: Kedios report"), "");
  // A bare file name from another repository without naming the repository.
  EXPECT_NE(check(" source: mlcommons H200-SXM-141GBx8_TRT_MaxQ.json (2 per node)"), "");
  // `same` with nothing cited before it; a name no earlier line gave.
  EXPECT_NE(check(" source: same config"), "");
  EXPECT_NE(check(" source: kv_lora 512 per colibri", true, {"mindspeed"}), "");
  // The word "source" alone, an assumption without its reasoning, no marker at all.
  EXPECT_NE(check(" the source is the vendor"), "");
  EXPECT_NE(check(" assumed: as gb200-nvl72"), "");
  EXPECT_NE(check(""), "");
  // The shared reference by section only.
  EXPECT_NE(check(" source: shared/reference/hardware-and-models.md"), "");
}

}  // namespace
