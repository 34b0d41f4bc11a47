// search: auto enumerates tp / ep / attention-dp plans up to the system (an NVL72 rack: widths
// 1 .. 64 and 72; those dividing 72 fill it), prunes invalid ones with the reason, ranks the rest by the analytic
// bound and keeps the best few; serving.replicas defaults to fill.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"
#include <unistd.h>

#include <H5Cpp.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <set>
#include <cstdio>
#include <string>

#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/plan_ranking.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/runner.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/serving/step_coster.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/file_text.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

class SearchAuto : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("agentsim_searchauto_" + std::to_string(::getpid()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path write(const std::string& model, const std::string& system, const std::string& extra = "") {
    fs::path p = dir / "e.yaml";
    std::ofstream(p) << "name: auto\nseed: 1\nmodel: " << model << "\nsystem: " << system << "\nsearch: auto\n"
                     << "serving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8, network: 0.8}}\n"
                     << "readoffs: {agent_speeds: [50]}\n" << extra
                     << "workload:\n  trace: " << kRoot << "/workloads/traces/claude-code-sample/requests.csv\n"
                     << "  concurrency: [1, 64]\n  warmup: \"5s\"\n  window: \"20s\"\n";
    return p;
  }
};

TEST_F(SearchAuto, EveryValidPlanOnAnNvl72RackUsesAll72Gpus) {
  Experiment e = load_experiment(write("llama-3.1-8b", "gb200-nvl72").string(), kRoot);
  ASSERT_TRUE(e.search_auto);
  std::set<std::string> labels;
  int valid = 0;
  for (const Plan& p : e.plans) {
    labels.insert(p.label);
    if (!p.pruned.empty()) continue;
    ++valid;
    // Widths dividing 72 fill the rack; 16 and 32 run 4 and 2 replicas on 64 GPUs, 8 idle.
    const bool divides = 72 % p.deployment.plan.devices() == 0;
    EXPECT_EQ(resolve_run(e, p).accelerators(), divides ? 72 : 64) << p.label;
  }
  // Dense model: tp over the powers of two up to the rack (1 .. 64) and 72 itself.
  EXPECT_EQ(labels, (std::set<std::string>{"tp=1", "tp=2", "tp=4", "tp=8", "tp=16", "tp=32", "tp=64", "tp=72"}));
  EXPECT_EQ(valid, 6);
  for (const Plan& p : e.plans) {
    if (p.label == "tp=72" || p.label == "tp=64") {
      EXPECT_NE(p.pruned.find("heads"), std::string::npos) << p.pruned;
    }
  }
  // 36 x TP2 and 9 x TP8 replicas.
  for (const Plan& p : e.plans) {
    if (p.label == "tp=2") {
      EXPECT_EQ(resolve_run(e, p).replicas(), 36);
    }
    if (p.label == "tp=8") {
      EXPECT_EQ(resolve_run(e, p).replicas(), 9);
    }
  }
}

TEST_F(SearchAuto, MoeCandidatesAndRankingKeepTheBestBounds) {
  Experiment e = load_experiment(write("gpt-oss-120b", "hgx-b200").string(), kRoot);
  std::set<std::string> labels;
  for (const Plan& p : e.plans) labels.insert(p.label);
  for (const char* want : {"tp=1", "tp=2", "tp=2,ep=2", "dp=2,ep=2", "tp=8,ep=8", "dp=8,ep=8"}) {
    EXPECT_TRUE(labels.count(want)) << want;
  }
  const std::size_t aggregated = e.plans.size();
  const wl::Trace sessions = load_sessions(e);
  rank_plans(e, sessions);
  ASSERT_GT(e.plans.size(), aggregated) << "prefill/decode splits of the system are ranked too";
  // Every valid or held-back plan has a distinct rank that follows its bound.
  std::vector<const Plan*> ranked;
  for (const Plan& p : e.plans) {
    if (p.bound_rank > 0) ranked.push_back(&p);
    if (p.prefill_replicas > 0) {
      EXPECT_GE(p.bound_rank, 1) << p.label;
    }
  }
  std::sort(ranked.begin(), ranked.end(), [](const Plan* a, const Plan* b) { return a->bound_rank < b->bound_rank; });
  ASSERT_GT(ranked.size(), 3u);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    EXPECT_EQ(ranked[i]->bound_rank, static_cast<int>(i) + 1);
    if (i > 0) {
      EXPECT_LE(ranked[i]->bound_tok_s, ranked[i - 1]->bound_tok_s);
      // Equal bounds (the same decode pool binds): the larger prefill pool first.
      if (ranked[i]->bound_tok_s == ranked[i - 1]->bound_tok_s) {
        EXPECT_LE(ranked[i]->bound_prefill_tok_s, ranked[i - 1]->bound_prefill_tok_s) << ranked[i]->label;
      }
    }
    if (static_cast<int>(i) < kAutoSearchKeep) {
      EXPECT_EQ(ranked[i]->pruned, "") << ranked[i]->label;
    }
    EXPECT_EQ(ranked[i]->held_back, !ranked[i]->pruned.empty());
    if (ranked[i]->held_back) {
      EXPECT_NE(ranked[i]->pruned.find("analytic bound"), std::string::npos);
    }
  }
  // Also simulated: the best split, the best aggregated plan (each family's leader, however the
  // other ranks) and the aggregated plan fastest for one agent.
  const Plan* best_split = nullptr;
  const Plan* best_aggregated = nullptr;
  for (const Plan* p : ranked) {
    if (p->prefill_replicas > 0 && (!best_split || p->bound_tok_s > best_split->bound_tok_s)) best_split = p;
    if (p->prefill_replicas == 0 && (!best_aggregated || p->bound_tok_s > best_aggregated->bound_tok_s)) best_aggregated = p;
  }
  ASSERT_NE(best_split, nullptr);
  EXPECT_EQ(best_split->pruned, "");
  ASSERT_NE(best_aggregated, nullptr);
  EXPECT_EQ(best_aggregated->pruned, "");
  EXPECT_TRUE(std::any_of(ranked.begin(), ranked.end(), [](const Plan* p) { return p->held_back; }))
      << "the rest wait down the ranking";
  const WorkloadProfile w = workload_profile(sessions);
  const Plan* fastest = nullptr;
  double fastest_tok_s = 0;
  for (const Plan* p : ranked) {
    if (p->prefill_replicas > 0) continue;
    const double v = replica_bound(e, p->deployment, p->system, w, 50, sessions.block_size_tokens).single_agent_tok_s;
    if (!fastest || v > fastest_tok_s) fastest = p, fastest_tok_s = v;
  }
  ASSERT_NE(fastest, nullptr);
  EXPECT_EQ(fastest->pruned, "") << fastest->label << " is the fastest for one agent";
}

// Ranked per watt, a plan leaving GPUs of the rack idle can lead; the aggregated plan of the highest
// bound per system is simulated as well, so the simulation decides between them.
TEST_F(SearchAuto, TheAggregatedPlanOfTheHighestBoundIsSimulatedBesideThePerWattLeader) {
  // The Claude Code example on its rack: 9x(dp=8,ep=8) on all 72 GPUs has the highest bound per
  // system; plans on 64 GPUs (8 idle) rank above it per watt.
  Experiment e = load_experiment(std::string(kRoot) + "/experiments/examples/agentic-v4.1-flash-claude-code.yaml",
                                 kRoot, {"systems=[gb300-nvl72]"});
  rank_plans(e, load_sessions(e));
  const Plan* per_watt = nullptr;
  const Plan* most = nullptr;
  for (const Plan& p : e.plans) {
    if (p.bound_rank < 1 || p.prefill_replicas > 0) continue;
    if (!per_watt || bound_per_w(p) > bound_per_w(*per_watt)) per_watt = &p;
    if (!most || p.bound_tok_s > most->bound_tok_s) most = &p;
  }
  ASSERT_NE(most, nullptr);
  ASSERT_NE(most, per_watt) << "the two leaders differ on this rack";
  EXPECT_GT(most->bound_rank, kAutoSearchKeep) << most->label << " is not simulated for its rank alone";
  EXPECT_FALSE(most->held_back) << most->label;
  EXPECT_EQ(most->pruned, "") << most->label;
  EXPECT_FALSE(per_watt->held_back) << per_watt->label;
}

// The bound by hand: one sequence's step time sets its speed; the batch grows until the speed falls
// below the target, so the bound's batch meets it and one more sequence would not.
TEST_F(SearchAuto, BoundIsTheLargestBatchMeetingTheSpeed) {
  Experiment e = load_experiment(write("llama-3.1-70b", "hgx-h200").string(), kRoot);
  for (const Plan& p : e.plans) {
    if (p.label != "tp=8" || !p.pruned.empty()) continue;
    const PlanBound b = plan_bound(e, p, 8192, 40, 64);
    ASSERT_GT(b.batch, 0);
    EXPECT_GE(1.0 / b.step_s, 40.0);
    const RunSpec spec = resolve_run(e, p, 64);
    const serving::StepCoster coster(e.model, spec.system, spec.replica.cost);
    serving::StepBatch more;
    more.decodes.assign(static_cast<std::size_t>(b.batch + 1), serving::DecodeItem{8192});
    if (b.batch < spec.replica.max_sequences) {
      EXPECT_LT(1.0 / coster.price(more).total_s, 40.0);
    }
    EXPECT_DOUBLE_EQ(b.system_tok_s, 1.0 * static_cast<double>(b.batch) / b.step_s);  // 1 replica of 8 GPUs
  }
}

// With a speculative drafter a sequence emits the expected tokens per step, not one: the bound's
// speed and throughput count them (they used to be one per step, which priced EP plans at the
// tiny batches where the busiest expert rank is most loaded).
TEST_F(SearchAuto, SpeculativeBoundCountsTheTokensEachStepEmits) {
  Experiment e = load_experiment(write("deepseek-r1", "hgx-h200").string(), kRoot);
  int checked = 0;
  for (const Plan& p : e.plans) {
    if (p.label != "tp=8" || !p.pruned.empty()) continue;
    const RunSpec spec = resolve_run(e, p, 64);
    ASSERT_TRUE(spec.replica.cost.spec.enabled()) << "DeepSeek-R1 runs its MTP drafter by default";
    const double tokens = spec.replica.cost.spec.expected_tokens_per_step();
    ASSERT_GT(tokens, 1.5);
    const PlanBound b = plan_bound(e, p, 8192, 40, 64);
    ASSERT_GT(b.batch, 0);
    EXPECT_GE(tokens / b.step_s, 40.0);
    const serving::StepCoster coster(e.model, spec.system, spec.replica.cost);
    serving::StepBatch more;
    more.decodes.assign(static_cast<std::size_t>(b.batch + 1), serving::DecodeItem{8192});
    const long long most = std::min<long long>(spec.replica.max_sequences, spec.replica.kv_capacity_tokens / 8192);
    if (b.batch < most) {
      EXPECT_LT(tokens / coster.price(more).total_s, 40.0);
    } else {
      EXPECT_EQ(b.batch, most);  // the KV cache or the sequence limit binds first
    }
    EXPECT_DOUBLE_EQ(b.system_tok_s, static_cast<double>(b.batch) * tokens / b.step_s);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// The bound follows the draft schedule as the replica does: speculation off from one running
// sequence bounds exactly as no drafter, and off from 8 leaves the lone agent's bound as drafting.
TEST_F(SearchAuto, SpeculativeBoundFollowsTheDraftSchedule) {
  auto bound = [&](const std::string& deployment) {
    Experiment e = load_experiment(write("deepseek-r1", "hgx-h200", deployment).string(), kRoot);
    for (const Plan& p : e.plans) {
      // The deployment's other keys join the label: "tp=8,speculative=off".
      const bool tp8 = p.label == "tp=8" || p.label.rfind("tp=8,", 0) == 0;
      if (tp8 && p.label.find("ep=") == std::string::npos && p.pruned.empty()) return plan_bound(e, p, 8192, 40, 64);
    }
    std::string labels;
    for (const Plan& p : e.plans) labels += p.label + (p.pruned.empty() ? "" : " (pruned)") + "; ";
    ADD_FAILURE() << "no tp=8 plan: " << labels;
    return PlanBound{};
  };
  const PlanBound off = bound("deployment: {speculative: off}\n");
  const PlanBound none_from_1 = bound("deployment: {draft_schedule: {1: 0}}\n");
  const PlanBound none_from_8 = bound("deployment: {draft_schedule: {8: 0}}\n");
  const PlanBound drafting = bound("");
  ASSERT_GT(off.batch, 0);
  EXPECT_EQ(none_from_1.batch, off.batch);
  EXPECT_DOUBLE_EQ(none_from_1.system_tok_s, off.system_tok_s);
  EXPECT_DOUBLE_EQ(none_from_1.single_agent_tok_s, off.single_agent_tok_s);
  EXPECT_DOUBLE_EQ(none_from_8.single_agent_tok_s, drafting.single_agent_tok_s);
  EXPECT_GT(drafting.single_agent_tok_s, 1.5 * off.single_agent_tok_s);
}

TEST_F(SearchAuto, ARunFillsTheRackAndAccountsEveryGpu) {
  const fs::path p = write("llama-3.1-8b", "gb200-nvl72");
  // Aggregated plans only: a prefill/decode split may leave GPUs idle.
  const auto r = test_support::run("run " + p.string() + " -j 2 --set serving.disaggregation.search=false --out " +
                                   (dir / "o").string());
  ASSERT_EQ(r.code, 0) << r.output;
  H5::H5File f((dir / "o" / "results.h5").string(), H5F_ACC_RDONLY);
  H5::DataSet runs = f.openDataSet("runs");
  hsize_t n = 0;
  runs.getSpace().getSimpleExtentDims(&n);
  ASSERT_GT(n, 0u);
  H5::CompType one(sizeof(double));
  one.insertMember("accelerators", 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> acc(n);
  runs.read(acc.data(), one);
  for (double a : acc) EXPECT_EQ(a, 72) << "every simulated plan serves with all 72 GPUs";
}

// The search goes down each system's ranking until the best simulated plan is not the last of
// the plans simulated from the top, judged on the read-offs the run reports (after bisection).
// V4 Pro on hgx-h200 with seed 1: the bound ranks 1x(tp=8) first, the narrowed read-offs the
// bound's second plan, 1x(tp=8,ep=8), so the third is simulated.
TEST_F(SearchAuto, TheBestSimulatedPlanIsNotTheLastOfTheTopOnTheReportedReadoffs) {
  const auto r = test_support::run("run " + std::string(kRoot) +
                                   "/experiments/examples/v4-pro-vs-v4.1-flash.yaml -j 2 --set seed=1 "
                                   "--set systems=[hgx-h200] --no-run-table --out " + (dir / "o").string());
  ASSERT_EQ(r.code, 0) << r.output;
  const std::size_t at = r.output.find("ranking hgx-h200: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  int ranked = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at, "ranking hgx-h200: %d plans", &ranked), 1);
  std::set<int> simulated;
  int best = 0;
  for (std::size_t line = r.output.find("\n  bound #", at); line != std::string::npos;
       line = r.output.find("\n  bound #", line + 1)) {
    int bound = 0;
    char rank[16] = {};
    if (std::sscanf(r.output.c_str() + line, "\n  bound #%d simulated #%15s", &bound, rank) != 2) break;
    simulated.insert(bound);
    if (std::string(rank) == "1") best = bound;
  }
  int top = 0;  // plans simulated from the top of the ranking without a gap
  while (simulated.count(top + 1) > 0) ++top;
  ASSERT_GT(best, 0) << r.output.substr(at, 1200);
  EXPECT_TRUE(best < top || top == ranked || top >= kAutoSearchKeep + kAutoSearchDeeper)
      << "best simulated is bound #" << best << ", the last of the top " << top << "\n" << r.output.substr(at, 1200);
  EXPECT_GE(top, 3) << r.output.substr(at, 1200);
}

// A plan one system chose for a read-off is simulated on every other system of the experiment, so
// a comparison never rests on a plan one system was not tried with: Llama-3.1-8B on four 8-GPU
// systems (every plan fits each), where hgx-b300 chooses 2x(tp=4) for its single agent, which
// hgx-h200's bound ranks sixth and its search alone never reaches; tried, it is hgx-h200's best
// plan at 50 tok/s per agent.
fs::path write_peers(const fs::path& dir) {
  fs::path p = dir / "peers.yaml";
  std::ofstream(p) << "name: peers\nseed: 1\nmodel: llama-3.1-8b\nsystems: [hgx-h100, hgx-h200, hgx-b200, hgx-b300]\n"
                   << "search: auto\nserving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8, network: 0.8}}\n"
                   << "readoffs: {agent_speeds: [50]}\n"
                   << "workload:\n  trace: " << kRoot << "/workloads/traces/claude-code-sample/requests.csv\n"
                   << "  concurrency: auto\n  warmup: \"5s\"\n  window: \"20s\"\n";
  return p;
}

TEST_F(SearchAuto, EverySystemSimulatesThePlansOtherSystemsChose) {
  const fs::path p = write_peers(dir);
  const auto r = test_support::run("run " + p.string() + " -j 2 --no-run-table --out " + (dir / "o").string());
  ASSERT_EQ(r.code, 0) << r.output;
  // Simulated deployments per system, from the ranking report.
  std::map<std::string, std::set<std::string>> simulated;
  std::string system;
  std::size_t at = 0;
  while (at < r.output.size()) {
    const std::size_t end = std::min(r.output.find('\n', at), r.output.size());
    const std::string line = r.output.substr(at, end - at);
    at = end + 1;
    if (line.rfind("ranking ", 0) == 0) {
      system = line.substr(8, line.find(':') - 8);
    } else if (line.rfind("  bound #", 0) == 0 && !system.empty()) {
      const std::size_t sim = line.find("simulated #");
      const std::size_t name = line.find(' ', sim + 11);
      const std::size_t stop = line.find(" bound ", name);
      ASSERT_NE(stop, std::string::npos) << line;
      std::string d = line.substr(name, stop - name);
      d.erase(0, d.find_first_not_of(' '));
      d.erase(d.find_last_not_of(' ') + 1);
      simulated[system].insert(d);
    }
  }
  ASSERT_EQ(simulated.size(), 4u) << r.output;
  EXPECT_NE(r.output.find("; another system's choice\n"), std::string::npos) << "the log marks the plans so simulated";
  std::ifstream in(dir / "o" / "readoffs.csv");
  core::CsvReader csv(in, "readoffs.csv");
  const std::size_t sys_col = csv.column("system"), dep_col = csv.column("deployment");
  int chosen = 0;
  while (csv.next()) {
    const std::string& d = csv.field(dep_col);
    if (d.empty()) continue;
    ++chosen;
    for (const auto& [s, plans] : simulated) {
      EXPECT_TRUE(plans.contains(d)) << csv.field(sys_col) << " chose " << d << ", which " << s << " did not simulate";
    }
  }
  EXPECT_GE(chosen, 8);
}

// The rounds that add other systems' choices depend only on the read-offs, so one thread and two
// write the same files.
TEST_F(SearchAuto, TheSearchWithOtherSystemsChoicesIsByteIdenticalForAnyThreadCount) {
  const fs::path p = write_peers(dir);
  for (const char* j : {"1", "2"}) {
    const auto r = test_support::run("run " + p.string() + " -j " + j + " --no-run-table --out " + (dir / j).string());
    ASSERT_EQ(r.code, 0) << r.output;
  }
  for (const char* f : {"summary.csv", "readoffs.csv", "results.h5"}) {
    const std::string a = test_support::slurp(dir / "1" / f), b = test_support::slurp(dir / "2" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between -j 1 and -j 2";
  }
}

}  // namespace
}  // namespace agentsim::exp
