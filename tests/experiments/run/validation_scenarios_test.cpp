// The saturation scenarios of `validate` on small cases: an MLPerf Server row's predicted rate
// meets its p99 TTFT and TPOT limits and a slightly higher rate does not; an Offline row runs
// saturated (more requests offered than its replicas admit) on the smallest plan that fits; and
// the wall power predicted for a row holds more than its accelerators' board power.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/validation_runner.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "workloads/sessions/session_generator.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;

calib::MeasuredRun small_row(const std::string& scenario) {
  calib::MeasuredRun r;
  r.id = "small";
  r.file = "small.csv";
  r.line = 2;
  r.model = "llama-3.1-8b";
  r.system = "hgx-h100";
  r.engine = "vllm";
  r.plan = "smallest fit";
  r.plan_smallest_fit = true;
  r.gpus = 1;
  r.isl = 256;
  r.osl = 16;
  r.concurrency = 1;
  r.scenario = scenario;
  r.ttft_p99_limit_s = 0.5;
  r.tpot_p99_limit_s = 0.03;
  for (double& m : r.metrics) m = std::numeric_limits<double>::quiet_NaN();
  r.metrics[calib::measured_metric_index("output_tok_s_per_gpu")] = 1000;
  return r;
}

ValidationRow prepared(const calib::MeasuredRun& r) {
  const Experiment base = load_experiment(kRoot + "/experiments/validation/validate.yaml", kRoot);
  const PreparedRows p = prepare_rows(base, load_catalog(kRoot), {r}, {});
  if (p.rows.size() != 1) ADD_FAILURE() << (p.skipped.empty() ? "no row" : p.skipped[0].reason);
  return p.rows.at(0);
}

TEST(ValidationScenarios, ServerRateMeetsItsSloAndAHigherRateDoesNot) {
  const ValidationRow row = prepared(small_row("server"));
  const serving::EngineOverhead& engine = row.experiment.serving.engine_overhead;
  const ServerPoint p = server_slo_rate(row, engine);
  ASSERT_GT(p.rate_per_s, 0);
  EXPECT_TRUE(p.meets);
  EXPECT_LE(p.ttft_p99_s, 0.5);
  EXPECT_LE(p.tpot_p99_s, 0.03);
  // The bisection stops within 2% of the first failing rate: 5% more fails a limit.
  const ServerPoint above = server_probe(row, engine, p.rate_per_s * 1.05);
  EXPECT_FALSE(above.meets) << "ttft p99 " << above.ttft_p99_s << " tpot p99 " << above.tpot_p99_s;
  // And the reported prediction is the run at that rate: output tok/s per GPU = rate x 16 tokens.
  const std::vector<double> pred = predict_row(row, engine);
  const double out = pred[calib::measured_metric_index("output_tok_s_per_gpu")];
  EXPECT_NEAR(out, p.rate_per_s * 16, 0.1 * p.rate_per_s * 16);
}

TEST(ValidationScenarios, OfflineRunsSaturatedOnTheSmallestFittingPlan) {
  const ValidationRow row = prepared(small_row("offline"));
  EXPECT_EQ(row.run.plan, "tp=1,ep=1,pp=1,dp=1");  // Llama 3.1 8B fits one H100
  // One replica admitting max_sequences (validate.yaml: 256) with one more waiting.
  EXPECT_EQ(row.experiment.workload.concurrency.at(0), 257);
  const serving::EngineOverhead& engine = row.experiment.serving.engine_overhead;
  const std::vector<double> offline = predict_row(row, engine);
  const double offline_tok_s = offline[calib::measured_metric_index("output_tok_s_per_gpu")];
  // Saturation outruns what the Server limits allow.
  const ValidationRow server = prepared(small_row("server"));
  const double server_tok_s = predict_row(server, engine)[calib::measured_metric_index("output_tok_s_per_gpu")];
  EXPECT_GT(offline_tok_s, server_tok_s);
  // Board power is the serving GPU's (as InferenceX averages it), above idle; wall power per GPU
  // (MLPerf's, the whole system over its GPUs) holds the system's board power, the serving GPU's and
  // the seven idle ones', and the host's share of the system.
  const double board = offline[calib::measured_metric_index("power_w_per_gpu")];
  const double wall = offline[calib::measured_metric_index("wall_power_w_per_gpu")];
  ASSERT_TRUE(std::isfinite(board) && std::isfinite(wall));
  const hw::System& system = row.experiment.systems.at(0);
  const double idle_w = system.accelerator.idle_w;
  EXPECT_GT(board, idle_w);
  const double system_board = (board + (system.accelerators - 1) * idle_w) / system.accelerators;
  EXPECT_GT(wall, system_board);
}

TEST(ValidationScenarios, ARowsAnswerSpreadIsDrawnUpToItsLongestAnswer) {
  // Fixed: every answer osl tokens.
  const ValidationRow fixed = prepared(small_row("offline"));
  const wl::Trace a = wl::generate_sessions(fixed.experiment.workload.generator, 400, 7);
  for (const auto& s : a.sessions) EXPECT_EQ(s.turns.at(0).output_tokens, 16);
  // Drawn: log-normal of median 16 and p90 64, none longer than 256, every prompt with room for it.
  calib::MeasuredRun r = small_row("offline");
  r.osl_median = 16;
  r.osl_p90 = 64;
  r.osl_max = 256;
  const ValidationRow drawn = prepared(r);
  EXPECT_EQ(drawn.experiment.workload.generator.max_context_tokens, 256 + 256);
  const wl::Trace b = wl::generate_sessions(drawn.experiment.workload.generator, 400, 7);
  long long longest = 0, above_p90 = 0, below_median = 0;
  for (const auto& s : b.sessions) {
    const long long out = s.turns.at(0).output_tokens;
    longest = std::max(longest, out);
    above_p90 += out > 64;
    below_median += out < 16;
  }
  EXPECT_LE(longest, 256);
  EXPECT_GT(longest, 64);
  EXPECT_NEAR(static_cast<double>(above_p90) / 400, 0.10, 0.05);
  EXPECT_NEAR(static_cast<double>(below_median) / 400, 0.50, 0.08);
}

TEST(ValidationScenarios, NonServerRowsRefuseTheServerProbe) {
  const ValidationRow row = prepared(small_row("offline"));
  EXPECT_THROW(server_probe(row, row.experiment.serving.engine_overhead, 1.0), core::Error);
}

// A wide-EP row measuring one role alone: DeepSeek-V3 with DP attention, EP16 over two HGX nodes
// (`gpus` 16) or EP8 in one (8; hgx-h200: V3 does not fit eight H100s).
calib::MeasuredRun one_role_row(const std::string& scenario, const std::string& system, long long isl, int gpus = 16) {
  calib::MeasuredRun r = small_row(scenario);
  r.model = "deepseek-v3";
  r.system = system;
  r.engine = "sglang";
  r.plan = "tp=1,ep=" + std::to_string(gpus) + ",dp=" + std::to_string(gpus);
  r.plan_smallest_fit = false;
  r.gpus = gpus;
  r.isl = isl;
  r.osl = 1;
  r.two_batch_overlap = true;
  r.role_batch_per_device = scenario == "prefill-only" ? 8192 : 64;
  return r;
}

double predicted(const calib::MeasuredRun& r, const char* metric) {
  const ValidationRow row = prepared(r);
  return predict_row(row, row.experiment.serving.engine_overhead)[calib::measured_metric_index(metric)];
}

TEST(ValidationScenarios, OneRoleRowsPredictTheirRolesRateOnly) {
  const double pre = predicted(one_role_row("prefill-only", "hgx-h100", 2000), "total_tok_s_per_gpu");
  EXPECT_GT(pre, 100);
  EXPECT_TRUE(std::isnan(predicted(one_role_row("prefill-only", "hgx-h100", 2000), "output_tok_s_per_gpu")));
  const double dec = predicted(one_role_row("decode-only", "hgx-h100", 2000), "output_tok_s_per_gpu");
  EXPECT_GT(dec, 10);
  EXPECT_TRUE(std::isnan(predicted(one_role_row("decode-only", "hgx-h100", 2000), "total_tok_s_per_gpu")));
  // 64 sequences a device, one token each a step: the per-GPU rate is 64 x the per-sequence speed.
  EXPECT_NEAR(dec, 64 * predicted(one_role_row("decode-only", "hgx-h100", 2000), "agent_output_tok_s"), 1e-9 * dec);
}

TEST(ValidationScenarios, OneRoleRowsSlowWithContextAndNeverLoseToADominatingSystem) {
  // In one node (the all-to-all on NVLink, the step not bound by the NICs): longer prompts of the
  // same tokens a step do more attention, so the prompt rate falls; longer contexts read more KV.
  EXPECT_LT(predicted(one_role_row("prefill-only", "hgx-h200", 8000, 8), "total_tok_s_per_gpu"),
            predicted(one_role_row("prefill-only", "hgx-h200", 1000, 8), "total_tok_s_per_gpu"));
  EXPECT_LT(predicted(one_role_row("decode-only", "hgx-h200", 8000, 8), "output_tok_s_per_gpu"),
            predicted(one_role_row("decode-only", "hgx-h200", 1000, 8), "output_tok_s_per_gpu"));
  // Over two nodes the EP16 prefill step waits on the NICs: the all-to-all's bytes, not the prompt
  // length, set it (its expert GEMMs, with twice the tokens per expert of EP8's, take less). A MoE
  // layer's longer attention only covers more of that wait, so the step grows by the attention
  // of DeepSeek-V3's 3 dense layers alone (no all-to-all flies over them), where in one node
  // (everything exposed) it grows by all 61 layers' attention, the same per layer (8,192 tokens a
  // device either way): 3/61 of the EP8 growth. Prompts of 1,024 and 8,192 tokens fill the token
  // budget whole (a partial chunk's attention would differ between the two widths).
  const auto step_s = [](int ep, long long isl) {
    return 8192.0 / predicted(one_role_row("prefill-only", "hgx-h200", isl, ep), "total_tok_s_per_gpu");
  };
  const double ep8_growth_s = step_s(8, 8192) - step_s(8, 1024);
  const double ep16_growth_s = step_s(16, 8192) - step_s(16, 1024);
  ASSERT_GT(ep8_growth_s, 0.0);
  EXPECT_NEAR(ep16_growth_s, 3.0 / 61.0 * ep8_growth_s, 1e-4 * 3.0 / 61.0 * ep8_growth_s);
  // H200: the H100's die with more HBM bandwidth, the same NICs. Decode reads more KV a second;
  // prefill over the default row's nodes waits on the same NICs on both, equal to rounding.
  EXPECT_GT(predicted(one_role_row("decode-only", "hgx-h200", 2000), "output_tok_s_per_gpu"),
            predicted(one_role_row("decode-only", "hgx-h100", 2000), "output_tok_s_per_gpu"));
  const double h200 = predicted(one_role_row("prefill-only", "hgx-h200", 2000), "total_tok_s_per_gpu");
  const double h100 = predicted(one_role_row("prefill-only", "hgx-h100", 2000), "total_tok_s_per_gpu");
  EXPECT_GE(h200, h100 * (1 - 1e-12));
}

}  // namespace
}  // namespace agentsim::exp
