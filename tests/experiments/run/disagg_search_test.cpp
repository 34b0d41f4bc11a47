// search: auto ranks prefill/decode splits of a system beside its aggregated plans, each within
// the system with its GPUs named; a hand-written split larger than its systems is an input error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "experiments/config/deployment_name.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/plan_ranking.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/runner.hpp"
#include "tests/support/source_root.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

class DisaggSearch : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("agentsim_disaggsearch_" + std::to_string(::getpid()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path write(const std::string& serving_extra, const std::string& workload_extra = "") {
    fs::path p = dir / "e.yaml";
    std::ofstream(p) << "name: pd\nseed: 1\nmodel: llama-3.1-70b\nsystem: hgx-h200\nsearch: auto\n"
                     << "serving:\n  step_overhead: \"2ms\"\n  router: session_affinity\n"
                     << "  efficiency: {compute: 0.7, memory: 0.8, network: 0.8}\n" << serving_extra
                     << "readoffs: {agent_speeds: [30]}\n"
                     << "workload:\n  trace: " << kRoot << "/workloads/traces/claude-code-sample/requests.csv\n"
                     << "  warmup: \"5s\"\n  window: \"20s\"\n" << workload_extra;
    return p;
  }
};

TEST_F(DisaggSearch, SplitsAreRankedWithTheirGpusAndBound) {
  Experiment e = load_experiment(write("", "  concurrency: [4]\n").string(), kRoot);
  rank_plans(e, load_sessions(e));
  int splits = 0;
  for (const Plan& p : e.plans) {
    if (p.prefill_replicas <= 0) continue;
    ++splits;
    EXPECT_GT(p.bound_rank, 0) << p.label;
    EXPECT_GT(p.decode_replicas, 0);
    const long long gpus = deployment_gpus(e, p);
    EXPECT_LE(gpus, 8) << p.label << ": a split stays within the system";
    const std::string name = deployment_name(e, p);
    EXPECT_EQ(name.rfind("P ", 0), 0u) << name;
    if (gpus < 8) {
      EXPECT_NE(name.find(std::to_string(8 - gpus) + " idle"), std::string::npos) << name;
    }
    EXPECT_EQ(resolve_run(e, p).accelerators(), gpus);
  }
  EXPECT_GT(splits, 0);
}

TEST_F(DisaggSearch, ASplitLargerThanItsSystemsIsAnInputError) {
  const fs::path p = dir / "split.yaml";
  std::ofstream(p) << "name: pd\nmodel: llama-3.1-70b\nsystem: hgx-h200\ndeployment: {tp: 8}\nserving:\n"
                   << "  step_overhead: \"2ms\"\n"
                   << "  disaggregation: {prefill_replicas: 1, decode_replicas: 2, systems: 2}\n"
                   << "workload:\n  trace: " << kRoot << "/workloads/traces/claude-code-sample/requests.csv\n"
                   << "  concurrency: [4]\n";
  // tp=8 on hgx-h200: 3 replicas of 8 GPUs need 24, two systems hold 16.
  try {
    load_experiment(p.string(), kRoot);
    FAIL() << "expected an error";
  } catch (const core::Error& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("split.yaml:7"), std::string::npos) << what;
    EXPECT_NE(what.find("serving.disaggregation.systems"), std::string::npos) << what;
    EXPECT_NE(what.find("need 24"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace agentsim::exp
