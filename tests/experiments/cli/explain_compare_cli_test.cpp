// `agentsim explain ... --compare SYSTEM` prints the step on both systems op by op; its ratios
// equal those of the two single-system explains (JSON), and a --plan the second system cannot
// hold exits 2 with the reason.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "calibration/system_comparison.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/source_root.hpp"

namespace agentsim::exp {
namespace {

using test_support::run;

nlohmann::json json_of(const std::string& args) {
  const auto [code, out] = run("explain " + args + " --json");
  EXPECT_EQ(code, 0) << args << "\n" << out;
  return code == 0 ? nlohmann::json::parse(out) : nlohmann::json::object();
}

TEST(ExplainCompareCli, RatiosAreThoseOfTheTwoSingleExplains) {
  const std::string step = "--model deepseek-v4.1-flash --plan tp=8 --batch decode=16@2048 --engine sglang";
  const nlohmann::json a = json_of(step + " --system hgx-h100");
  const nlohmann::json b = json_of(step + " --system hgx-h200");
  const nlohmann::json c = json_of(step + " --system hgx-h100 --compare hgx-h200");
  ASSERT_TRUE(c.contains("ops"));
  EXPECT_EQ(c["a"]["system"], "hgx-h100");
  EXPECT_EQ(c["b"]["system"], "hgx-h200");
  EXPECT_DOUBLE_EQ(c["ratio"].get<double>(), b["total_s"].get<double>() / a["total_s"].get<double>());
  std::size_t matched = 0;
  for (const auto& row : c["ops"]) {
    for (std::size_t i = 0; i < a["ops"].size(); ++i) {
      const auto& oa = a["ops"][i];
      const auto& ob = b["ops"][i];
      if (oa["op"] != row["op"] || oa["layer_kind"] != row["layer_kind"]) continue;
      ASSERT_EQ(ob["op"], oa["op"]);
      if (oa["time_s"].get<double>() <= 0) continue;
      EXPECT_DOUBLE_EQ(row["ratio"].get<double>(), ob["time_s"].get<double>() / oa["time_s"].get<double>()) << row["op"];
      EXPECT_EQ(row["a"]["table"], oa["note"]);
      EXPECT_EQ(row["b"]["table"], ob["note"]);
      ++matched;
      break;
    }
  }
  EXPECT_GE(matched, 5u);
  // The text form names each side's table for the routed experts.
  const auto [code, text] = run("explain " + step + " --system hgx-h100 --compare hgx-h200");
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("routed_experts"), std::string::npos) << text;
  EXPECT_NE(text.find("B/A"), std::string::npos) << text;
  const auto [bad, err] = run("explain --model deepseek-r1 --system mi355x-8 --plan tp=4 --batch decode=1@10 --compare hgx-h100");
  EXPECT_EQ(bad, 2) << err;
  EXPECT_NE(err.find("--compare hgx-h100"), std::string::npos) << err;
}

// After the step, what the measured runs that ran the same work on both systems say (the shipped
// calibration/data/system_comparisons.yaml), quoted as the file keeps them whichever system is A.
TEST(ExplainCompareCli, QuotesTheMeasuredRunsThatComparedTheTwoSystems) {
  const calib::SystemComparisons shipped = calib::load_system_comparisons(
      test_support::kRoot + "/" + std::string(calib::kShippedSystemComparisonsPath));
  const calib::SystemPair* pair = shipped.find("hgx-h100", "hgx-h200");
  ASSERT_NE(pair, nullptr) << "the shipped comparisons have H100 and H200 runs of the same work";
  const std::string step = "--model llama-3.1-70b --plan tp=8 --batch decode=16@2048 --engine trtllm";
  const nlohmann::json forward = json_of(step + " --system " + pair->a + " --compare " + pair->b);
  const nlohmann::json backward = json_of(step + " --system " + pair->b + " --compare " + pair->a);
  ASSERT_TRUE(forward["validated"].is_object()) << forward["validated"];
  EXPECT_EQ(forward["validated"]["pairs"].get<int>(), pair->pairs);
  // Quoted as validate took the medians, b over a, whichever system is A (a median of ratios does
  // not invert exactly).
  for (const nlohmann::json& j : {forward, backward}) {
    EXPECT_EQ(j["validated"]["a"], pair->a);
    EXPECT_EQ(j["validated"]["b"], pair->b);
    EXPECT_DOUBLE_EQ(j["validated"]["measured_ratio_median"].get<double>(), pair->measured_ratio_median);
    EXPECT_DOUBLE_EQ(j["validated"]["predicted_ratio_median"].get<double>(), pair->predicted_ratio_median);
  }
  const auto [code, text] = run("explain " + step + " --system " + pair->a + " --compare " + pair->b);
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("measured: " + std::to_string(pair->pairs) + " pairs of runs"), std::string::npos) << text;
  // Two systems no measured run compared: said so, and null in JSON.
  ASSERT_EQ(shipped.find("hgx-b300", "hgx-a100"), nullptr);
  const std::string dense = "--model llama-3.1-8b --plan tp=1 --batch decode=8@1024 --engine vllm";
  const auto [none_code, none] = run("explain " + dense + " --system hgx-b300 --compare hgx-a100");
  EXPECT_EQ(none_code, 0) << none;
  EXPECT_NE(none.find("measured: no pair of runs of the same work on hgx-b300 and hgx-a100"), std::string::npos) << none;
  EXPECT_TRUE(json_of(dense + " --system hgx-b300 --compare hgx-a100")["validated"].is_null());
}

}  // namespace
}  // namespace agentsim::exp
