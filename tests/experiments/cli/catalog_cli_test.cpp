// agentsim catalog list | show NAME [--json], end to end.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Result {
  int code = -1;
  std::string out;
};

Result run(const std::string& args) {
  Result r;
  FILE* p = popen((std::string(AGENTSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) r.out += buf;
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CatalogCli, ListShowsAllTenSystems) {
  const Result r = run("catalog list");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* s : {"hgx-a100", "hgx-h100", "hgx-h200", "hgx-b200", "hgx-b300", "gb200-nvl72", "gb300-nvl72",
                        "mi300x-8", "mi325x-8", "mi355x-8"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  EXPECT_NE(r.out.find("systems (10)"), std::string::npos);
  EXPECT_NE(r.out.find("accelerators (10)"), std::string::npos);
}

TEST(CatalogCli, ShowGb300JsonHasSiFigures) {
  const Result r = run("catalog show gb300-nvl72 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
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
  ASSERT_EQ(s.code, 0) << s.out;
  EXPECT_NE(s.out.find("4.8 TB/s"), std::string::npos) << s.out;
  const Result a = run("catalog show mi355x --json");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_EQ(nlohmann::json::parse(a.out).at("kind").get<std::string>(), "accelerator");
}

TEST(CatalogCli, UnknownNameExitsTwoWithSuggestion) {
  const Result r = run("catalog show gb300-nvl27");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("did you mean 'gb300-nvl72'"), std::string::npos) << r.out;
}

}  // namespace
