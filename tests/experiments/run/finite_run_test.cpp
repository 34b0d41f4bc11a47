// workload.session_limit: a finite closed-loop run (a benchmark's N prompts). Every session runs
// once, the window ends with the last answer, so rates are tokens over the run's duration and the
// power has no idle tail; a run that does not finish within its window keeps the window; the key
// is closed-loop only and non-negative.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <algorithm>
#include <string>

#include "experiments/config/experiment.hpp"
#include "experiments/run/runner.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;

std::string body(const std::string& limit, const std::string& window, const std::string& mode = "closed-loop") {
  return "name: finite\n"
         "model: llama-3.1-8b\n"
         "system: hgx-h200\n"
         "seed: 3\n"
         "deployment: {tp: 1}\n"
         "workload:\n"
         "  mode: " + mode + "\n" +
         (mode == "poisson" ? "  session_rates: [0.2]\n" : "  concurrency: [4]\n") +
         "  sessions: 20\n"
         "  session_limit: " + limit + "\n"
         "  warmup: \"0s\"\n"
         "  window: \"" + window + "\"\n"
         "  generator:\n"
         "    turns: {median: 1, p90: 1}\n"
         "    initial_context_tokens: {median: 2000, p90: 2000}\n"
         "    growth_tokens: {median: 1, p90: 1}\n"
         "    output_tokens: {median: 300, p90: 300}\n"
         "    tool_gap_s: {median: 1, p90: 1}\n"
         "    human_gap_s: {median: 1, p90: 1}\n";
}

Experiment parse_finite(const std::string& text) { return parse_experiment(text, kRoot + "/finite.yaml", kRoot); }

TEST(FiniteRun, EverySessionOnceAndTheWindowEndsWithTheLastAnswer) {
  const Experiment e = parse_finite(body("20", "3600s"));
  ASSERT_EQ(e.workload.session_limit, 20);
  const wl::Trace sessions = load_sessions(e);
  RunResult r;
  {
    Experiment rec = e;
    rec.record_requests = true;
    r = run_point(rec, sessions, 4);
  }
  ASSERT_EQ(r.requests.size(), 20u);
  EXPECT_EQ(r.summary.requests, 20);
  double last_s = 0, out_tokens = 0;
  for (const auto& q : r.requests) {
    last_s = std::max(last_s, q.last_token_s);
    out_tokens += static_cast<double>(q.output_tokens);
  }
  EXPECT_LT(last_s, 600.0);
  EXPECT_NEAR(r.summary.window_s, last_s, 1e-9 * last_s) << "not the configured 3600 s";
  EXPECT_NEAR(r.summary.output_tok_s, out_tokens / last_s, 1e-9 * r.summary.output_tok_s);
  // The one replica is busy for most of that window (over the configured 3,600 s it would be a
  // few percent): no idle tail dilutes the power either.
  EXPECT_GT(r.power.busy_s / r.summary.window_s, 0.5);
}

TEST(FiniteRun, AnUnfinishedRunKeepsItsWindow) {
  const Experiment e = parse_finite(body("20", "5s"));
  const RunResult r = run_point(e, load_sessions(e), 4);
  EXPECT_DOUBLE_EQ(r.summary.window_s, 5.0);
  EXPECT_LT(r.summary.requests, 20);
}

TEST(FiniteRun, ClosedLoopOnlyAndNotNegative) {
  EXPECT_THROW(parse_finite(body("20", "60s", "poisson")), core::Error);
  try {
    parse_finite(body("-1", "60s"));
    FAIL() << "expected an error";
  } catch (const core::Error& err) {
    EXPECT_EQ(err.where().key_path, "workload.session_limit") << err.what();
  }
  EXPECT_EQ(parse_finite(body("0", "60s")).workload.session_limit, 0);
}

}  // namespace
}  // namespace agentsim::exp
