// agentsim catalog list | show NAME [--json], end to end.
#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace {

using Result = agentsim::test_support::CliResult;
using agentsim::test_support::run;

TEST(CatalogCli, ListShowsAllTenSystems) {
  const Result r = run("catalog list");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* s : {"hgx-a100", "hgx-h100", "hgx-h200", "hgx-b200", "hgx-b300", "gb200-nvl72", "gb300-nvl72",
                        "mi300x-8", "mi325x-8", "mi355x-8"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s;
  }
  EXPECT_NE(r.output.find("systems (10)"), std::string::npos);
  EXPECT_NE(r.output.find("accelerators (10)"), std::string::npos);
}

TEST(CatalogCli, ShowGb300JsonHasSiFigures) {
  const Result r = run("catalog show gb300-nvl72 --json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j.at("accelerators").get<int>(), 72);
  EXPECT_DOUBLE_EQ(j.at("accelerator").at("hbm_bw_Bps").get<double>(), 8e12);
  EXPECT_DOUBLE_EQ(j.at("totals").at("hbm_bw_Bps").get<double>(), 576e12);
  EXPECT_DOUBLE_EQ(j.at("power").at("rack").at("rack_nameplate_w").get<double>(), 132e3);
  EXPECT_DOUBLE_EQ(j.at("power").at("rack").at("rack_draw_under_load_w").get<double>(), 125e3);
  EXPECT_DOUBLE_EQ(j.at("power").at("accelerators_tdp_w").get<double>(), 100.8e3);
  EXPECT_EQ(j.at("memory_tiers").size(), 4u);
}

TEST(CatalogCli, ShowTextAndAccelerator) {
  const Result s = run("catalog show hgx-h200");
  ASSERT_EQ(s.code, 0) << s.output;
  EXPECT_NE(s.output.find("4.8 TB/s"), std::string::npos) << s.output;
  const Result a = run("catalog show mi355x --json");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_EQ(nlohmann::json::parse(a.output).at("kind").get<std::string>(), "accelerator");
}

TEST(CatalogCli, UnknownNameExitsTwoWithSuggestion) {
  const Result r = run("catalog show gb300-nvl27");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("did you mean 'gb300-nvl72'"), std::string::npos) << r.output;
}

}  // namespace
