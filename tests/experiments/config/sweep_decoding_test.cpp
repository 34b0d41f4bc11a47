// Strict decoding of the sweep keys (systems, search, slo, readoffs, power, record,
// what_if, --set) and `describe`: each error names its line and key.
// Project headers before gtest: <signal.h> (via gtest) defines a si_value macro.
#include "experiments/config/experiment.hpp"
#include "experiments/config/option_sections.hpp"
#include "experiments/run/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"

#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <filesystem>
#include <fstream>


namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;
using agentsim::test_support::kTrace;

class SweepDecoding : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_sweepdec_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  std::string write(const std::string& body) {
    const fs::path p = dir / "e.yaml";
    std::ofstream(p) << body;
    return p.string();
  }
  static std::string body(const std::string& head, const std::string& tail = "") {
    return "name: t\nmodel: llama-3.1-8b\n" + head +
           "workload:\n  trace: " + kTrace + "\n  concurrency: [1, 2]\n  warmup: \"1s\"\n  window: \"10s\"\n" + tail;
  }
  std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    const std::string path = write(text);
    try {
      load_experiment(path, kRoot, sets);
    } catch (const core::Error& e) {
      std::string msg = e.what();
      const std::string prefix = path + ":";
      if (msg.rfind(prefix, 0) == 0) msg = "FILE:" + msg.substr(prefix.size());
      return msg;
    }
    return "no error";
  }
};

TEST_F(SweepDecoding, SystemsSearchAndTargetsDecode) {
  const Experiment e = load_experiment(
      write(body("systems: [hgx-h200, gb200-nvl72]\nsearch:\n  tp: [8, 16]\n",
                 "readoffs: {agent_speeds: [50, 100]}\nslo: {tiers: [20, 60], ttft: \"2s\"}\npower: {pue: 1.2}\n")),
      kRoot);
  ASSERT_EQ(e.systems.size(), 2u);
  // 2 systems x 2 tp values, system-major; tp=16 spans two 8-GPU HGX nodes (a valid plan).
  ASSERT_EQ(e.plans.size(), 4u);
  EXPECT_EQ(e.plans[0].label, "tp=8");
  EXPECT_TRUE(e.plans[0].pruned.empty());
  EXPECT_EQ(e.plans[1].label, "tp=16");
  EXPECT_TRUE(e.plans[1].pruned.empty()) << e.plans[1].pruned;
  EXPECT_EQ(e.plans[1].deployment.plan.nodes(8), 2);
  EXPECT_TRUE(e.plans[3].pruned.empty()) << "72 GPUs take tp=16";
  EXPECT_EQ(e.plans[3].deployment.plan.tp, 16);
  EXPECT_EQ(e.readoff_speeds_tok_s, (std::vector<double>{50, 100}));
  ASSERT_EQ(e.slo_tiers.size(), 2u);
  EXPECT_EQ(e.slo_tiers[1].agent_tok_s, 60);
  EXPECT_EQ(e.slo_tiers[1].speed_percentile, 10);
  EXPECT_EQ(e.slo_tiers[1].ttft_s, 2.0);
  EXPECT_EQ(e.power.pue, 1.2);
  // 2 plans per system, all valid, 2 levels each.
  EXPECT_EQ(expand_sweep(e).size(), 8u);
}

TEST_F(SweepDecoding, RunIdsAndSeedsAreStable) {
  const Experiment e = load_experiment(write(body("systems: [hgx-h200, hgx-b200]\ndeployment: {tp: 8}\n")), kRoot);
  const auto pts = expand_sweep(e);
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[0].id, "hgx-h200/tp=8/1");
  EXPECT_EQ(pts[3].id, "hgx-b200/tp=8/2");
  // Seeds depend on the level only (common random numbers across systems).
  EXPECT_EQ(pts[0].seed, pts[2].seed);
  EXPECT_NE(pts[0].seed, pts[1].seed);
  EXPECT_EQ(pts[1].seed, core::derive_seed(1, "sweep/level/2"));
}

TEST_F(SweepDecoding, ErrorMessages) {
  EXPECT_EQ(error_of(body("sytems: [hgx-h200]\n")),
            "FILE:3: sytems: unknown key (did you mean 'systems'?); valid keys: name, seed, model, system, systems, "
            "deployment, search, serving, workload, readoffs, slo, power, record, what_if, error_bands, limits");
  EXPECT_EQ(error_of(body("system: hgx-h200\nsystems: [hgx-b200]\n")), "FILE:1: give either system or systems, not both");
  EXPECT_EQ(error_of(body("")), "FILE:1: missing key 'system' (or 'systems')");
  EXPECT_EQ(error_of(body("systems: [hgx-h200, hgx-h200]\n")), "FILE:3: systems[1]: system 'hgx-h200' listed twice");
  EXPECT_NE(error_of(body("systems: [hgx-h20]\n")).find("unknown system 'hgx-h20' (did you mean 'hgx-h200'?)"),
            std::string::npos);
  EXPECT_EQ(error_of(body("system: hgx-h200\nsearch: {pt: [1, 2]}\n")).substr(0, 56),
            "FILE:4: search.pt: unknown key (did you mean 'pp'?); val");
  EXPECT_EQ(error_of(body("system: hgx-h200\nsearch: {tp: 8}\n")),
            "FILE:4: search.tp: expected a non-empty list of candidate values");
  EXPECT_EQ(error_of(body("system: hgx-h200\n", "slo: {tiers: [20], speed_percentile: 20}\n")),
            "FILE:9: slo.speed_percentile: expected one of 10, 50");
  EXPECT_NE(error_of(body("system: hgx-h200\n", "slo: {tiers: [20], ttft: \"2GB\"}\n")).find("slo.ttft"),
            std::string::npos);
  EXPECT_NE(error_of(body("system: hgx-h200\n", "readoffs: {agent_speeds: [-5]}\n")).find("readoffs.agent_speeds"),
            std::string::npos);
  EXPECT_EQ(error_of(body("system: hgx-h200\n", "power: {pue: 0.5}\n")), "FILE:9: power.pue: expected a PUE in [1, 3]");
  EXPECT_EQ(error_of(body("system: hgx-h200\n", "what_if: {h20: {tdp: \"1kW\"}}\n")),
            "FILE:9: what_if.h20: unknown catalog entry 'h20' (did you mean 'h200'?); keys are accelerator, system "
            "or model names");
  EXPECT_EQ(error_of(body("system: hgx-h200\ndeployment: {tp: 8}\n"), {"workload.window"}),
            "--set: workload.window: expected PATH=VALUE, e.g. workload.window=300s");
  EXPECT_NE(error_of(body("system: hgx-h200\ndeployment: {tp: 8}\n"), {"workload.windw=5s"})
                .find("workload.windw: unknown key (did you mean 'window'?)"),
            std::string::npos);
}

TEST_F(SweepDecoding, SetOverridesAndWhatIfChangeTheDecodedValues) {
  const std::string path = write(body("system: hgx-h200\ndeployment: {tp: 8}\n"));
  const Experiment e = load_experiment(path, kRoot, {"workload.window=30s", "seed=9", "workload.concurrency=[3, 5, 7]"});
  EXPECT_EQ(e.workload.window_s, 30.0);
  EXPECT_EQ(e.seed, 9u);
  EXPECT_EQ(e.workload.levels, (std::vector<double>{3, 5, 7}));
  // Halving the H200's HBM bandwidth through what_if reaches the system that embeds it.
  const Experiment base = load_experiment(path, kRoot);
  const Experiment half = load_experiment(path, kRoot, {"what_if.h200.hbm_bandwidth=2.4TB/s"});
  EXPECT_DOUBLE_EQ(half.systems[0].accelerator.hbm_bw_Bps, 2.4e12);
  EXPECT_GT(base.systems[0].accelerator.hbm_bw_Bps, 4e12);
  const Experiment quiet = load_experiment(path, kRoot, {"what_if.hgx-h200.power.nameplate=5kW"});
  EXPECT_DOUBLE_EQ(quiet.systems[0].power.nameplate_w, 5000.0);
  // A model's KV precision: the card's stated bytes per token (a cross-check of its own BF16 KV)
  // give way, and the KV per token halves; a wrong restated figure is still an error.
  const Experiment bf16 = load_experiment(path, kRoot);
  const Experiment fp8 = load_experiment(path, kRoot, {"what_if.llama-3.1-8b.precision.kv_cache=fp8"});
  EXPECT_DOUBLE_EQ(fp8.model.kv_bytes_per_token(), bf16.model.kv_bytes_per_token() / 2);
  EXPECT_NE(error_of(body("system: hgx-h200\ndeployment: {tp: 8}\n",
                          "what_if: {llama-3.1-8b: {precision: {kv_cache: fp8}, kv_cache: {bytes_per_token: 131072}}}\n"))
                .find("catalog says 131072"),
            std::string::npos);
}

TEST(Describe, EverySectionListsItsDeclarations) {
  const std::string all = describe_all();
  for (const auto& s : option_sections()) {
    for (const auto& o : s.options) EXPECT_NE(all.find(std::string(o.name)), std::string::npos) << o.name;
  }
  const std::string wl = describe_section("workload");
  EXPECT_EQ(wl.rfind("workload: where sessions come from", 0), 0u) << wl;
  EXPECT_NE(wl.find("concurrency"), std::string::npos);
  EXPECT_NE(wl.find("list of integers"), std::string::npos);
  const std::string kv = describe_section("serving.kv_cache");
  EXPECT_NE(kv.find("tier_scope"), std::string::npos) << kv;
  EXPECT_NE(kv.find("retention"), std::string::npos) << kv;
  const std::string slo = describe_section("slo");
  EXPECT_NE(slo.find("speed_percentile  integer"), std::string::npos) << slo;
  try {
    describe_section("slp");
    ADD_FAILURE() << "unknown section accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown section 'slp' (did you mean 'slo'?)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace agentsim::exp
