// Engram placement where the deployment is resolved (issue #16 item 2): `run` (the
// deployment section), the HBM `what_if`, `explain` and `model show` all start from the
// model's engram.placement_default (host for V4.1 Flash).
// Project headers before gtest: <signal.h> (via gtest) defines a si_value macro.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "experiments/config/experiment.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

std::string run_cli(const std::string& args, int* rc) {
  const std::string cmd = std::string(AGENTSIM_BINARY) + " --root " + kRoot + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  *rc = WEXITSTATUS(pclose(p));
  return out;
}

class EngramDefault : public ::testing::Test {
 protected:
  fs::path dir =
      fs::temp_directory_path() /
      ("agentsim_engram_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& tail) {
    const fs::path p = dir / "e.yaml";
    std::ofstream(p)
        << "name: t\nmodel: deepseek-v4.1-flash\nsystem: hgx-b200\n"
        << tail << "workload:\n  trace: " << kRoot
        << "/workloads/traces/claude-code-sample/requests.csv\n  concurrency: [1]\n  warmup: \"1s\"\n"
           "  window: \"10s\"\n";
    return p.string();
  }
};

TEST_F(EngramDefault, TheDeploymentTakesTheModelsPlacement) {
  const Experiment e = load_experiment(write("deployment: {tp: 8}\n"), kRoot);
  EXPECT_TRUE(e.model.engram.host_resident);
  EXPECT_TRUE(e.plans.front().deployment.plan.engram_on_host);
  EXPECT_TRUE(e.plans.front().deployment.engram_prefetch);
  const Experiment hbm = load_experiment(write("deployment: {tp: 8, engram_on_host: false}\n"), kRoot);
  EXPECT_FALSE(hbm.plans.front().deployment.plan.engram_on_host);
}

TEST_F(EngramDefault, WhatIfPutsTheTablesInHbm) {
  const std::string path =
      write("deployment: {tp: 8}\nwhat_if: {deepseek-v4.1-flash: {engram: {placement_default: gpu}}}\n");
  const Experiment e = load_experiment(path, kRoot);
  EXPECT_FALSE(e.model.engram.host_resident);
  EXPECT_FALSE(e.plans.front().deployment.plan.engram_on_host);
  // The other Engram fields survive the overlay.
  EXPECT_DOUBLE_EQ(e.model.engram.rows_per_token, 48.0);
  // In HBM the 2-GPU plan no longer fits a B200: the plan is rejected with the memory reason.
  try {
    load_experiment(
        write("deployment: {tp: 2}\nwhat_if: {deepseek-v4.1-flash: {engram: {placement_default: gpu}}}\n"),
        kRoot);
    ADD_FAILURE() << "tp=2 with Engram in HBM should not fit hgx-b200";
  } catch (const core::Error& err) {
    EXPECT_NE(std::string(err.what()).find("Engram tables 101.4 GB in HBM"), std::string::npos) << err.what();
  }
  EXPECT_TRUE(load_experiment(write("deployment: {tp: 2}\n"), kRoot).plans.front().deployment.plan.engram_on_host);
}

// (e) `explain` shows the Engram host-link line with a nonzero time by default.
TEST(EngramExplain, DefaultShowsTheHostLinkLine) {
  int rc = 0;
  const std::string out = run_cli(
      "explain --model deepseek-v4.1-flash --system hgx-b200 --plan tp=8 --batch decode=1@100000 --spec off", &rc);
  ASSERT_EQ(rc, 0) << out;
  // One token per step (speculation off; with the drafter on, 6 verified tokens read 6x the rows).
  const std::size_t at =
      out.find("Engram host link: 0.013 MB of rows per device over pcie5 at 64 GB/s per GPU");
  ASSERT_NE(at, std::string::npos) << out;
  // 2 us latency + 12,672 B / 64 GB/s.
  EXPECT_NE(out.find("transfer 2.20 us", at), std::string::npos) << out;
  EXPECT_NE(out.find("prefetch on", at), std::string::npos) << out;

  const std::string off = run_cli(
      "explain --model deepseek-v4.1-flash --system hgx-b200 --plan tp=8 --batch decode=1@100000 "
      "--no-engram-prefetch --spec off "
      "--json",
      &rc);
  ASSERT_EQ(rc, 0) << off;
  const auto j = nlohmann::json::parse(off);
  EXPECT_EQ(j["engram"]["placement"], "host");
  EXPECT_EQ(j["engram"]["host_link"], "pcie5");
  EXPECT_NEAR(j["engram"]["host_exposed_s"].get<double>(), 2e-6 + 12672 / 64e9, 1e-12);
  EXPECT_NEAR(j["causes"]["host_link_s"].get<double>(), j["engram"]["host_exposed_s"].get<double>(), 1e-15);

  const std::string hbm = run_cli(
      "explain --model deepseek-v4.1-flash --system hgx-b200 --plan tp=8 --batch decode=1@100000 --engram "
      "gpu",
      &rc);
  ASSERT_EQ(rc, 0) << hbm;
  EXPECT_EQ(hbm.find("Engram host link"), std::string::npos) << hbm;
  EXPECT_NE(hbm.find("Engram tables in HBM (25.4 GB per device)"), std::string::npos) << hbm;
}

TEST(EngramExplain, ModelShowAndTheChosenPlanDefaultToHost) {
  int rc = 0;
  const auto j = nlohmann::json::parse(run_cli("model show deepseek-v4.1-flash --json --plan tp=2", &rc));
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(j["plan"]["engram_on_host"].get<bool>());
  EXPECT_DOUBLE_EQ(j["per_device"]["engram_hbm_bytes"].get<double>(), 0.0);
  const std::string out =
      run_cli("explain --model deepseek-v4.1-flash --system hgx-b200 --batch decode=1@1000", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("plan tp=2,ep=2,pp=1,dp=1 (2 devices"), std::string::npos) << out;
  EXPECT_NE(out.find("Engram host link"), std::string::npos) << out;
}

}  // namespace
}  // namespace agentsim::exp
