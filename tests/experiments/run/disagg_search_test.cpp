// search: auto ranks prefill/decode splits of a system beside its aggregated plans, each within
// the system with its GPUs named; a hand-written split larger than its systems is an input error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "experiments/config/deployment_name.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/disagg_plans.hpp"
#include "experiments/run/plan_ranking.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/runner.hpp"
#include "experiments/run/sweep_outcome.hpp"
#include "experiments/run/sweep_ranks.hpp"
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

// The logged Spearman ranks the bound's values: plans it prices alike share a mid-rank, however
// the search's tie-break ordered them. Three simulated plans, two tied at the top and simulated in
// the reverse of their tie-break: ranks (2.5, 2.5, 1) against (2, 3, 1) give 1.5 / sqrt(3), where
// the tie-broken ranks would give 0.5. Their simulated output per MW ties where the bound does, so
// the bound's correlation with it is 1.
TEST_F(DisaggSearch, LoggedRankCorrelationSharesTiedBoundsAMidRank) {
  Experiment e = load_experiment(write("", "  concurrency: [4]\n").string(), kRoot);
  rank_plans(e, load_sessions(e));
  std::vector<int> kept;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    Plan& plan = e.plans[p];
    if (plan.bound_rank <= 0 || kept.size() == 3) {
      plan.bound_rank = 0;
      continue;
    }
    plan.pruned.clear();  // as if simulated
    kept.push_back(static_cast<int>(p));
  }
  ASSERT_EQ(kept.size(), 3u);
  const double bound[3] = {10, 10, 5}, readoff[3] = {2e6, 3e6, 1e6}, output[3] = {2e4, 2e4, 1e4};
  std::vector<ReadoffRow> rows;
  for (int i = 0; i < 3; ++i) {
    Plan& plan = e.plans[static_cast<std::size_t>(kept[static_cast<std::size_t>(i)])];
    plan.bound_rank = i + 1;
    plan.bound_tok_s = bound[i];
    plan.bound_power_w = 1000;
    ReadoffRow r;
    r.plan = kept[static_cast<std::size_t>(i)];
    r.target_kind = "speed";
    r.total_tok_s_per_mw = readoff[i];
    r.output_tok_s_per_mw = output[i];
    rows.push_back(r);
  }
  const std::string log = ranking_report(e, rows);
  char want[64];
  std::snprintf(want, sizeof want, "simulated rank: %.3g, ", 1.5 / std::sqrt(3.0));
  EXPECT_NE(log.find(want), std::string::npos) << log;
  EXPECT_NE(log.find("against simulated output tok/s per MW: 1; "), std::string::npos) << log;
  // The bound's first choice (the tie-break's, 2e6) reads off a third below the best (3e6).
  EXPECT_NE(log.find("the bound's first choice reads off 33.3% below the best simulated\n"), std::string::npos) << log;
}

// What trusting the bound alone costs, from the simulated read-offs in bound order.
TEST(FirstChoiceCost, ComparesTheBoundsFirstChoiceWithTheBestSimulated) {
  EXPECT_EQ(first_choice_cost({7.3e6, 7.53e6, 5.28e6}), "the bound's first choice reads off 3.1% below the best simulated");
  EXPECT_EQ(first_choice_cost({4.0, 3.0}), "the bound's first choice is the best simulated");
  EXPECT_EQ(first_choice_cost({4.0}), "the bound's first choice is the best simulated");
  EXPECT_EQ(first_choice_cost({-1.0, 2.0}), "the bound's first choice did not read off");
  EXPECT_EQ(first_choice_cost({-1.0, -1.0}), "no simulated plan read off");
  EXPECT_EQ(first_choice_cost({}), "no simulated plan read off");
}

// The P:D search against brute force, on a fixed workload: llama-3.1-8b on hgx-h200 with one
// plan (tp=1) for both pools, so the candidate splits are the pod shapes of one-GPU replicas that
// fit 8 GPUs. Brute force simulates every shape; search: auto simulates what its bound ranking and
// its deeper simulation choose. Both pick their best split by the same simulated read-off (agents
// per MW at the SLO tier: a starved prefill pool fails it on TTFT, a starved decode pool on speed),
// and each run's seed is its level's, so a shape simulated by both scores the same in both.
TEST_F(DisaggSearch, SearchFindsTheRatioABruteForceSweepOfTheSameRatiosFinds) {
  const fs::path path = dir / "pd.yaml";
  std::ofstream(path) << "name: pd\nseed: 3\nmodel: llama-3.1-8b\nsystem: hgx-h200\nsearch: auto\n"
                      << "serving:\n  step_overhead: \"2ms\"\n  router: session_affinity\n"
                      << "slo: {tiers: [40], speed_percentile: 10, ttft: \"3s\", ttft_percentile: 90}\n"
                      << "workload:\n  profile: agentperf\n  sessions: 400\n"
                      << "  concurrency: [8, 16, 32, 64, 128, 256, 512]\n  random_start: true\n  start_spread: \"10s\"\n"
                      << "  warmup: \"30s\"\n  window: \"30s\"\n";
  Experiment base = load_experiment(path.string(), kRoot);
  std::erase_if(base.plans, [](const Plan& p) { return p.label != "tp=1" || !p.pruned.empty(); });
  ASSERT_EQ(base.plans.size(), 1u);
  base.readoff_speeds_tok_s.clear();  // ranked by the SLO tier alone
  const wl::Trace sessions = load_sessions(base);
  const SweepRanks ranks;
  auto best_split = [](const Experiment& e, const SweepOutcome& out) {
    std::string best;
    double score = -1;
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      if (e.plans[p].prefill_replicas <= 0 || !e.plans[p].pruned.empty()) continue;
      const double v = simulated_score(e, static_cast<int>(p), out.plan_readoffs);
      if (v > score) score = v, best = e.plans[p].label;
    }
    return std::make_pair(best, score);
  };

  Experiment searched = base;
  rank_plans(searched, sessions);
  const SweepOutcome found = run_experiment(searched, sessions, ExecOptions{}, ranks);

  // Brute force: every pod shape of tp=1 prefill and decode replicas the search enumerates.
  Experiment brute = base;
  brute.search_auto = false;
  const Plan agg = base.plans.front();
  brute.plans.clear();
  for (int b = 1; b <= kMaxPodDecodeReplicas; ++b) {
    for (int a = 1; a <= kMaxPodPrefillReplicas; ++a) {
      const int pods = std::gcd(a, b) == 1 ? pods_that_fit(8, a, 1, b, 1) : 0;
      if (pods == 0) continue;
      Plan s = agg;
      s.prefill = agg.deployment;
      s.prefill_label = agg.label;
      s.prefill_replicas = a * pods;
      s.decode_replicas = b * pods;
      s.label = pools_text(s.decode_replicas, agg.label, s.prefill_replicas, agg.label);
      brute.plans.push_back(s);
    }
  }
  ASSERT_GE(brute.plans.size(), 4u);
  const SweepOutcome all = run_experiment(brute, sessions, ExecOptions{}, ranks);

  const auto [brute_best, brute_score] = best_split(brute, all);
  const auto [search_best, search_score] = best_split(searched, found);
  for (std::size_t p = 0; p < brute.plans.size(); ++p) {
    std::printf("brute force %-36s read-off %.4g\n", brute.plans[p].label.c_str(),
                simulated_score(brute, static_cast<int>(p), all.plan_readoffs));
  }
  std::printf("search: best split %s (%.4g)\n", search_best.c_str(), search_score);
  ASSERT_GT(brute_score, 0) << "the SLO tier is bracketed for some ratio";
  EXPECT_EQ(search_best, brute_best);
  EXPECT_DOUBLE_EQ(search_score, brute_score);
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
