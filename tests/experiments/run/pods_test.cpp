// serving.pods: a cluster split into independent routing pods is the sum of its pods,
// each an ordinary one-pod cluster with its share of replicas and agents and its own
// seed; results do not depend on how many threads run the pods; bad values are errors.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/run_codec.hpp"
#include "experiments/run/runner.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/percentile.hpp"
#include "sim/serving/pods.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;
using agentsim::test_support::kTrace;

std::string body(int replicas, const std::string& pods, unsigned long long seed, const std::string& mode = "closed-loop",
                 const std::string& extra = "", int agents = 4) {
  return "name: pods\n"
         "model: llama-3.1-8b\n"
         "system: hgx-h200\n"
         "seed: " + std::to_string(seed) + "\n"
         "deployment: {tp: 1}\n"
         "serving: {replicas: " + std::to_string(replicas) + ", pods: " + pods + ", router: session_affinity" + extra + "}\n"
         "workload:\n"
         "  mode: " + mode + "\n"
         "  trace: " + kTrace + "\n" +
         (mode == "poisson" ? "  session_rates: [0.2]\n" : "  concurrency: [" + std::to_string(agents) + "]\n") +
         "  warmup: \"5s\"\n"
         "  window: \"60s\"\n";
}

Experiment parse_pods(const std::string& text) { return parse_experiment(text, kRoot + "/pods.yaml", kRoot); }

TEST(Pods, TwoPodsAreTheSumOfTheirPodsRunAlone) {
  const Experiment both = parse_pods(body(2, "2", 7));
  const wl::Trace sessions = load_sessions(both);
  const RunResult r = run_point(both, sessions, 4);
  // Pod 0 is the plain cluster with one replica and 2 agents under seed 7; pod 1 the same
  // under its derived seed.
  const Experiment one = parse_pods(body(1, "1", 7));
  const Experiment other = parse_pods(body(1, "1", serving::pod_seed(7, 1)));
  const RunResult a = run_point(one, sessions, 2);
  const RunResult b = run_point(other, sessions, 2);
  ASSERT_GT(a.summary.requests, 0);
  ASSERT_GT(b.summary.requests, 0);
  EXPECT_NE(serving::pod_seed(7, 1), 7U);
  EXPECT_EQ(r.summary.requests, a.summary.requests + b.summary.requests);
  EXPECT_EQ(r.summary.steps, a.summary.steps + b.summary.steps);
  EXPECT_EQ(r.events, a.events + b.events);
  EXPECT_NEAR(r.summary.output_tok_s, a.summary.output_tok_s + b.summary.output_tok_s,
              1e-9 * r.summary.output_tok_s);
  EXPECT_NEAR(r.summary.input_tok_s, a.summary.input_tok_s + b.summary.input_tok_s, 1e-9 * r.summary.input_tok_s);
  EXPECT_EQ(r.requests.size(), a.requests.size() + b.requests.size());
  // Power accounting counts both pods' devices.
  EXPECT_EQ(r.power.accelerators, a.power.accelerators + b.power.accelerators);
}

TEST(Pods, ResultsDoNotDependOnThreads) {
  for (const char* mode : {"closed-loop", "poisson"}) {
    const Experiment e = parse_pods(body(3, "3", 11, mode));
    const wl::Trace sessions = load_sessions(e);
    const double level = e.workload.levels.front();
    const RunResult one = run_point(e, sessions, level, 1);
    const RunResult three = run_point(e, sessions, level, 3);
    ASSERT_GT(one.summary.requests, 0) << mode;
    EXPECT_EQ(one.summary.requests, three.summary.requests) << mode;
    EXPECT_EQ(one.summary.output_tok_s, three.summary.output_tok_s) << mode;
    EXPECT_EQ(one.summary.agent_output_tok_s_p10, three.summary.agent_output_tok_s_p10) << mode;
    EXPECT_EQ(one.summary.ttft_s_p90, three.summary.ttft_s_p90) << mode;
    EXPECT_EQ(one.summary.prefix_hit_rate, three.summary.prefix_hit_rate) << mode;
    EXPECT_EQ(one.events, three.events) << mode;
  }
}

TEST(Pods, ClassesGroupPodsOfOneShare) {
  // 36 replicas over 36 pods, 100 agents: pods 0-27 hold 3 agents, pods 28-35 hold 2.
  const auto c = serving::pod_classes(36, 100, 36);
  ASSERT_EQ(c.size(), 2U);
  EXPECT_EQ(c[0].first, 0);
  EXPECT_EQ(c[0].count, 28);
  EXPECT_EQ(c[1].first, 28);
  EXPECT_EQ(c[1].count, 8);
  // 5 replicas, 7 agents, 3 pods: replicas 2,2,1 and agents 3,2,2 make three distinct pods.
  const auto d = serving::pod_classes(5, 7, 3);
  ASSERT_EQ(d.size(), 3U);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(d[static_cast<std::size_t>(p)].first, p);
    EXPECT_EQ(d[static_cast<std::size_t>(p)].count, 1);
  }
  EXPECT_EQ(serving::pod_classes(8, 64, 4).size(), 1U);
}

TEST(Pods, PerReplicaPodsAreOnePodPerReplica) {
  const Experiment per = parse_pods(body(3, "per_replica", 5));
  const Experiment three = parse_pods(body(3, "3", 5));
  const wl::Trace sessions = load_sessions(per);
  const RunResult a = run_point(per, sessions, 6);
  const RunResult b = run_point(three, sessions, 6);
  ASSERT_GT(a.summary.requests, 0);
  EXPECT_EQ(a.summary.requests, b.summary.requests);
  EXPECT_EQ(a.summary.output_tok_s, b.summary.output_tok_s);
  EXPECT_EQ(a.events, b.events);
}

TEST(Pods, ARepresentativePodStandsForEveryPodOfItsShare) {
  // 4 replicas, one pod each, 8 agents: every pod holds 2 agents, so pod 0 alone is simulated and
  // counted four times: four times its requests, tokens/s and devices in use, the same percentiles.
  const Experiment rep = parse_pods(body(4, "per_replica", 7, "closed-loop", ", pod_sampling: representative", 8));
  const wl::Trace sessions = load_sessions(rep);
  const RunResult r = run_point(rep, sessions, 8);
  const RunResult pod0 = run_point(parse_pods(body(1, "1", 7)), sessions, 2);
  ASSERT_GT(pod0.summary.requests, 0);
  EXPECT_EQ(r.summary.requests, 4 * pod0.summary.requests);
  EXPECT_EQ(r.events, pod0.events);  // simulated once
  EXPECT_NEAR(r.summary.output_tok_s, 4 * pod0.summary.output_tok_s, 1e-9 * r.summary.output_tok_s);
  // Percentiles are those of pod 0's requests counted four times (interpolated percentiles of a
  // sample repeated k times are not those of the sample once: compute them from the copies).
  std::vector<double> ttft;
  for (int copy = 0; copy < 4; ++copy) {
    for (const auto& q : pod0.requests) ttft.push_back(q.first_token_s - q.arrival_s);
  }
  ASSERT_EQ(ttft.size(), static_cast<std::size_t>(r.summary.requests));
  EXPECT_DOUBLE_EQ(r.summary.ttft_s_p90, metrics::percentile(ttft, 90));
  EXPECT_DOUBLE_EQ(r.summary.ttft_s_p50, metrics::percentile(ttft, 50));
  EXPECT_EQ(r.power.accelerators, 4 * pod0.power.accelerators);
  // Simulating every pod gives a different sample of the same system, not a copy.
  const RunResult all = run_point(parse_pods(body(4, "per_replica", 7, "closed-loop", "", 8)), sessions, 8);
  EXPECT_GT(all.events, r.events);
  EXPECT_EQ(all.power.accelerators, r.power.accelerators);
}

// What MPI ranks do (experiments/run/sweep_executor.cpp run_points): each pod simulated alone, moved
// as bytes, merged in pod order, gives the run's exact bytes.
// A finite run (workload.session_limit) ends its window with the last answer of any pod, which
// each pod's bytes must carry.
TEST(Pods, PodsMovedAsBytesAndMergedInPodOrderAreTheRun) {
  for (const std::string mode : {"closed-loop", "poisson", "finite"}) {
    Experiment e = parse_pods(body(3, "3", 13, mode == "finite" ? "closed-loop" : mode));
    if (mode == "finite") {
      e.workload.session_limit = 3;
      e.workload.window_s = 36000;
    }
    const wl::Trace sessions = load_sessions(e);
    const double level = e.workload.levels.front();
    const RunSpec spec = resolve_run(e, first_valid_plan(e), sessions.block_size_tokens);
    const RunResult whole = run_point(e, spec, sessions, level, 99, 2);
    std::vector<PodOutcome> parts;
    for (int p = 2; p >= 0; --p) {  // simulated in any order
      parts.insert(parts.begin(), decode_pod(encode_pod(run_pod(e, spec, sessions, level, 99, p))));
    }
    const RunResult merged = merge_pods(e, spec, level, std::move(parts));
    ASSERT_GT(whole.summary.requests, 0) << mode;
    if (mode == "finite") {
      ASSERT_LT(whole.summary.window_s, 36000.0) << "the finite run finished early";
    }
    EXPECT_TRUE(encode_runs({whole}) == encode_runs({merged})) << mode;
  }
}

TEST(Pods, MorePodsThanReplicasOrAnOpenLoopReplayIsAnError) {
  try {
    parse_pods(body(2, "3", 1));
    FAIL() << "3 pods of 2 replicas accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("serving.pods: expected at most 2 pods: each pod needs at least one replica"),
              std::string::npos)
        << e.what();
  }
  std::string open = body(2, "2", 1, "open-loop");
  open.replace(open.find("  concurrency: [4]\n"), 18, "  time_scales: [1]\n");
  try {
    parse_pods(open);
    FAIL() << "pods with an open-loop replay accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("serving.pods: expected pods: 1 with an open-loop workload"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace agentsim::exp
