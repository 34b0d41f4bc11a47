// search: auto's plan enumeration at rack and multi-node scale: EP and attention-DP widths of
// 16 .. 72 in an NVL72 rack (EP not dividing the routed experts included), and replicas over
// two and four 8-GPU nodes when the model fits no single node.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "tests/support/source_root.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;
using test_support::kRoot;

class AutoPlans : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("agentsim_autoplans_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  Experiment load(const std::string& model, const std::string& system, const std::string& deployment = "") {
    const fs::path p = dir / "e.yaml";
    std::ofstream(p) << "name: auto\nmodel: " << model << "\nsystem: " << system << "\nsearch: auto\n" << deployment
                     << "workload:\n  trace: " << test_support::kTrace << "\n  concurrency: [1]\n  warmup: \"1s\"\n  window: \"10s\"\n";
    return load_experiment(p.string(), kRoot);
  }
  static const Plan* find(const Experiment& e, const std::string& label) {
    for (const Plan& p : e.plans) {
      if (p.label == label) return &p;
    }
    return nullptr;
  }
};

TEST_F(AutoPlans, Nvl72RackTriesEveryEpWidth) {
  const Experiment e = load("deepseek-v4-pro", "gb300-nvl72");
  for (const char* label : {"dp=16,ep=16", "dp=32,ep=32", "dp=64,ep=64", "dp=72,ep=72", "tp=16,ep=16"}) {
    const Plan* p = find(e, label);
    ASSERT_NE(p, nullptr) << label;
    EXPECT_EQ(p->pruned, "") << label;
  }
  // 384 experts over 72 ranks: 48 redundant, 6 a rank.
  const wl::ParallelPlan& ep72 = find(e, "dp=72,ep=72")->deployment.plan;
  EXPECT_EQ(ep72.experts_per_rank(e.model.ffn.experts), 6);
  EXPECT_EQ(resolve_run(e, *find(e, "dp=64,ep=64")).accelerators(), 64);  // 8 GPUs of the rack idle
  // One rack holds the model: no plan spans racks.
  for (const Plan& p : e.plans) EXPECT_EQ(p.deployment.plan.nodes(72), 1) << p.label;
}

// deployment.expert_all_to_all: false merges into every plan the search runs (the plan text of
// a DP + EP plan says a2a=0; its explain rows are the all-gather exchange's, docs/deployments.md).
TEST_F(AutoPlans, TheExpertExchangeMergesIntoEveryPlan) {
  const Experiment e = load("deepseek-v4-pro", "hgx-h100", "deployment: {expert_all_to_all: false}\n");
  int dp_ep = 0;
  for (const Plan& p : e.plans) {
    if (!p.pruned.empty()) continue;  // plans that cannot run (V4 Pro fits no single node)
    EXPECT_FALSE(p.deployment.plan.expert_all_to_all) << p.label;
    if (p.deployment.plan.attn_dp > 1 && p.deployment.plan.ep > 1) {
      ++dp_ep;
      EXPECT_NE(p.deployment.plan.to_string().find(",a2a=0"), std::string::npos) << p.label;
    }
  }
  EXPECT_GT(dp_ep, 0);
}

TEST_F(AutoPlans, ModelTooBigForOneNodeSpansNodes) {
  const Experiment e = load("deepseek-v4-pro", "hgx-h100", "deployment: {redundant_experts: 0}\n");
  int single = 0, multi = 0;
  for (const Plan& p : e.plans) {
    if (!p.pruned.empty()) continue;
    const int nodes = p.deployment.plan.nodes(8);
    (nodes == 1 ? single : multi) += 1;
    EXPECT_EQ(p.deployment.plan.redundant_experts, 0) << p.label;  // the section's other keys merge in
    // Power and GPUs: one replica occupies its whole systems.
    EXPECT_EQ(resolve_run(e, p).accelerators(), 8 * nodes) << p.label;
    EXPECT_EQ(resolve_run(e, p).replicas(), 1) << p.label;
  }
  EXPECT_EQ(single, 0);
  EXPECT_GT(multi, 0);
  for (const std::string label : {"dp=16,ep=16", "tp=8,dp=2,ep=16", "tp=8,pp=2,micro_batches=2", "dp=32,ep=32"}) {
    const Plan* p = find(e, label + ",redundant_experts=0");  // the section's key, merged in
    ASSERT_NE(p, nullptr) << label;
    EXPECT_EQ(p->pruned, "") << label;
  }
  EXPECT_EQ(find(e, "tp=8,pp=2,micro_batches=2,redundant_experts=0")->deployment.micro_batches, 2);
  // A model that fits one node gets no multi-node plan.
  for (const Plan& p : load("deepseek-v4-pro", "hgx-b200").plans) EXPECT_EQ(p.deployment.plan.nodes(8), 1) << p.label;
}

}  // namespace
}  // namespace agentsim::exp
