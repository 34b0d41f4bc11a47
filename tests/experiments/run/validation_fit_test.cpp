// The engine host-overhead model against hand values, `serving.engine` decoding, and
// the validate fit: a parameter used to generate synthetic rows is recovered, and
// leave-one-group-out on rows that all share it recovers it in every fold.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <cmath>
#include <fstream>
#include <limits>

#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/validation_fit.hpp"
#include "experiments/run/validation_runner.hpp"
#include "calibration/measured_names.hpp"
#include "sim/serving/replica_plan.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "sim/serving/engine_overhead_decoder.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;

TEST(EngineOverhead, TermsMatchHandValues) {
  serving::EngineOverhead o;
  o.fixed_s = 1.5e-3;
  o.graph_fixed_s = 1e-3;
  o.graph_max_sequences = 4;
  o.per_sequence_s = 10e-6;
  o.per_token_s = 0.2e-6;
  serving::StepBatch decode;
  decode.decodes.assign(4, serving::DecodeItem{1000});
  // Graph-replayed decode: 1 ms + 4 x 10 us + 4 tokens x 0.2 us = 1.0408 ms.
  auto t = o.terms(decode, 1);
  EXPECT_TRUE(t.graph);
  EXPECT_NEAR(o.host_s(decode, 1), 1e-3 + 40e-6 + 0.8e-6, 1e-12);
  // Five decodes exceed the captured sizes: eager, 1.5 ms + 50 us + 1 us.
  decode.decodes.push_back(serving::DecodeItem{10});
  t = o.terms(decode, 1);
  EXPECT_FALSE(t.graph);
  EXPECT_NEAR(o.host_s(decode, 1), 1.5e-3 + 50e-6 + 1e-6, 1e-12);
  // A prefill chunk of 1000 tokens with one decode: eager, 1.5 ms + 2 x 10 us + 1001 x 0.2 us.
  serving::StepBatch mixed;
  mixed.decodes.push_back(serving::DecodeItem{10});
  mixed.prefills.push_back(serving::PrefillChunk{1000, 0, true});
  EXPECT_NEAR(o.host_s(mixed, 1), 1.5e-3 + 20e-6 + 1001 * 0.2e-6, 1e-12);
  EXPECT_EQ(o.host_s(serving::StepBatch{}, 1), 0);
  // Four attention-DP ranks, each its own scheduler with its own graphs: the five decodes are at
  // most two a rank, within the captured sizes (graph-replayed), and the per-sequence and
  // per-token terms count one rank's share (ceil(5 / 4) = 2): 1 ms + 2 x 10 us + 2 x 0.2 us.
  t = o.terms(decode, 4);
  EXPECT_TRUE(t.graph);
  EXPECT_NEAR(o.host_s(decode, 4), 1e-3 + 20e-6 + 0.4e-6, 1e-12);
  // The prefill chunk's 1000 tokens and the decode's one, split: ceil(1001 / 4) = 251 tokens.
  EXPECT_NEAR(o.host_s(mixed, 4), 1.5e-3 + 10e-6 + 251 * 0.2e-6, 1e-12);
}

// Without the overlap scheduler a step waits for all its host work; with it, for the fixed term
// and what the per-sequence and per-token work takes beyond the step's device time.
TEST(EngineOverhead, OverlapSchedulerExposesOnlyWhatOutlastsTheDevice) {
  serving::EngineOverhead o;
  o.graph_fixed_s = 1e-3;
  o.per_sequence_s = 30e-6;
  o.per_token_s = 1e-6;
  serving::StepBatch decode;
  decode.decodes.assign(100, serving::DecodeItem{1000});
  const auto t = o.terms(decode, 1);  // 1 ms + 100 x 30 us + 100 x 1 us = 4.1 ms
  ASSERT_NEAR(t.total_s(), 4.1e-3, 1e-12);
  EXPECT_NEAR(o.exposed_s(t, 2e-3), 4.1e-3, 1e-12);  // off: all of it, whatever the device time
  o.overlap_scheduler = true;
  EXPECT_NEAR(o.exposed_s(t, 2e-3), 1e-3 + (3.1e-3 - 2e-3), 1e-12);  // 1.1 ms of the 3.1 outlast a 2 ms step
  EXPECT_NEAR(o.exposed_s(t, 3.1e-3), 1e-3, 1e-12);                   // exactly hidden
  EXPECT_NEAR(o.exposed_s(t, 50e-3), 1e-3, 1e-12);                    // a long step hides it all
  EXPECT_NEAR(o.exposed_s(t, 0), 4.1e-3, 1e-12);
}

TEST(EngineOverhead, CatalogHasEveryEngine) {
  const Catalog c = load_catalog(kRoot);
  for (const auto& [name, e] : serving::kEngineNames) {
    const serving::EngineOverhead& o = c.engine(e);
    EXPECT_GT(o.fixed_s, 0) << name;
    EXPECT_GE(o.fixed_s, o.graph_fixed_s) << name;
    EXPECT_GT(o.graph_max_sequences, 0) << name;
    // SGLang's zero-overhead scheduler, TensorRT-LLM's overlap scheduler and vLLM's async
    // scheduling (default since v0.14) are on by default (catalog sources).
    EXPECT_TRUE(o.overlap_scheduler) << name;
  }
}

// batch_limits is required and one of two words; anything else is an error at its line and key.
TEST(EngineOverhead, BatchLimitsDecodeStrictly) {
  const Catalog c = load_catalog(kRoot);
  EXPECT_TRUE(c.engine(serving::Engine::kVllm).limits_per_dp_rank);
  EXPECT_FALSE(c.engine(serving::Engine::kSglang).limits_per_dp_rank);
  EXPECT_TRUE(c.engine(serving::Engine::kTrtllm).limits_per_dp_rank);
  // SGLang runs prefill batches alone by default (no --enable-mixed-chunk); vLLM and TensorRT-LLM mix.
  EXPECT_TRUE(c.engine(serving::Engine::kVllm).mixed_batches);
  EXPECT_FALSE(c.engine(serving::Engine::kSglang).mixed_batches);
  EXPECT_TRUE(c.engine(serving::Engine::kTrtllm).mixed_batches);
  const std::string file = ::testing::TempDir() + "engines_bad.yaml";
  std::string text;
  for (const auto& [name, e] : serving::kEngineNames) {
    text += std::string(text.empty() ? "engines:\n" : "") + "  " + std::string(name) +
            ":\n    fixed: \"1ms\"\n    graph_fixed: \"1ms\"\n    graph_max_sequences: 8\n"
            "    per_sequence: \"1us\"\n    per_token: \"0.1us\"\n    mixed_batches: true\n    overlap_scheduler: true\n"
            "    request_latency: \"0s\"\n    batch_limits: " +
            (e == serving::Engine::kSglang ? "per_node" : "per_replica") + "\n";
  }
  std::ofstream(file) << text;
  try {
    serving::decode_engines(core::YamlNode::load_file(file));
    ADD_FAILURE() << "per_node accepted";
  } catch (const core::Error& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("engines.sglang.batch_limits"), std::string::npos) << what;
    EXPECT_NE(what.find("per_dp_rank or per_replica"), std::string::npos) << what;
  }
}

std::string experiment(const std::string& serving) {
  return "name: e\nmodel: llama-3.1-8b\nsystem: hgx-h200\ndeployment: {tp: 1}\n"
         "serving:\n" + serving +
         "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
         "  concurrency: [1]\n  warmup: \"1s\"\n  window: \"10s\"\n";
}

TEST(ServingEngine, DecodesOnceAndStepOverheadOverrides) {
  const Experiment a = parse_experiment(experiment("  engine: sglang\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_EQ(a.serving.engine, serving::Engine::kSglang);
  EXPECT_FALSE(a.serving.step_overhead_set);
  EXPECT_EQ(effective_engine_overhead(a.serving).graph_fixed_s, load_catalog(kRoot).engine(serving::Engine::kSglang).graph_fixed_s);
  const Experiment d = parse_experiment(experiment("  max_sequences: 8\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_EQ(d.serving.engine, serving::kDefaultEngine);
  const Experiment o = parse_experiment(experiment("  engine: trtllm\n  step_overhead: \"2ms\"\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_TRUE(effective_engine_overhead(o.serving).zero());
  EXPECT_DOUBLE_EQ(o.serving.step_overhead_s, 2e-3);
}

// serving.overlap_scheduler replaces the engine's catalog value; absent, the catalog's stands.
TEST(ServingEngine, OverlapSchedulerIsTheEnginesUnlessTheExperimentSetsIt) {
  const Experiment a = parse_experiment(experiment("  engine: sglang\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_FALSE(a.serving.overlap_scheduler_set);
  EXPECT_TRUE(effective_engine_overhead(a.serving).overlap_scheduler);
  const Experiment off =
      parse_experiment(experiment("  engine: sglang\n  overlap_scheduler: false\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_FALSE(effective_engine_overhead(off.serving).overlap_scheduler);
  EXPECT_FALSE(resolve_run(off, first_valid_plan(off)).replica.cost.engine.overlap_scheduler);
  try {
    parse_experiment(experiment("  overlap_scheduler: sometimes\n"), kRoot + "/e.yaml", kRoot);
    ADD_FAILURE() << "a non-bool accepted";
  } catch (const core::Error& err) {
    EXPECT_NE(std::string(err.what()).find("serving.overlap_scheduler"), std::string::npos) << err.what();
  }
}

// The engine's request latency is the catalog's unless serving.request_latency replaces it
// (0 s: requests reach the scheduler as the client sends them); a constant step_overhead leaves it.
TEST(ServingEngine, RequestLatencyIsTheEnginesUnlessTheExperimentSetsIt) {
  const Catalog c = load_catalog(kRoot);
  for (const auto& [name, e] : serving::kEngineNames) EXPECT_GT(c.engine(e).request_latency_s, 0) << name;
  const Experiment a = parse_experiment(experiment("  engine: trtllm\n  step_overhead: \"2ms\"\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_EQ(effective_request_latency_s(a.serving), c.engine(serving::Engine::kTrtllm).request_latency_s);
  const Experiment z = parse_experiment(experiment("  engine: sglang\n  request_latency: 0s\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_EQ(effective_request_latency_s(z.serving), 0.0);
  EXPECT_EQ(resolve_run(z, first_valid_plan(z)).request_latency_s, 0.0);
  const Experiment o = parse_experiment(experiment("  request_latency: 250ms\n"), kRoot + "/e.yaml", kRoot);
  EXPECT_DOUBLE_EQ(resolve_run(o, first_valid_plan(o)).request_latency_s, 0.25);
}

TEST(ServingEngine, UnknownNameIsAnErrorWithTheValidNames) {
  try {
    parse_experiment(experiment("  engine: vlm\n"), kRoot + "/e.yaml", kRoot);
    FAIL() << "accepted";
  } catch (const core::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("e.yaml:6: serving.engine"), std::string::npos) << m;
    EXPECT_NE(m.find("vllm"), std::string::npos) << m;
    EXPECT_NE(m.find("sglang"), std::string::npos) << m;
  }
}

// A synthetic engine: TPOT = device time + theta, rates = 1 / TPOT; rows differ in device time.
GridPredictions synthetic(double device_s, double batch) {
  GridPredictions g;
  for (double theta : kFitGrid) {
    std::vector<double> p(calib::kMeasuredMetricCount, std::numeric_limits<double>::quiet_NaN());
    const double tpot = device_s + theta;
    p[calib::measured_metric_index("tpot_s_mean")] = tpot;
    p[calib::measured_metric_index("output_tok_s_per_gpu")] = batch / tpot;
    g.at.push_back(p);
  }
  return g;
}

calib::MeasuredRun measured(double device_s, double batch, double theta, std::string group) {
  calib::MeasuredRun r;
  for (double& m : r.metrics) m = std::numeric_limits<double>::quiet_NaN();
  r.metrics[calib::measured_metric_index("tpot_s_mean")] = device_s + theta;
  r.metrics[calib::measured_metric_index("output_tok_s_per_gpu")] = batch / (device_s + theta);
  r.system = std::move(group);
  r.model = "m";
  return r;
}

TEST(ValidationFit, RecoversTheParameterTheRowsWereGeneratedWith) {
  const double truth = 1.23e-3;
  std::vector<calib::MeasuredRun> runs;
  std::vector<GridPredictions> grids;
  const double device[] = {4e-3, 8e-3, 12e-3, 20e-3, 30e-3, 6e-3};
  for (int i = 0; i < 6; ++i) {
    runs.push_back(measured(device[i], 8 * (i + 1), truth, i < 3 ? "a" : "b"));
    grids.push_back(synthetic(device[i], 8 * (i + 1)));
  }
  // Interpolation is exact for TPOT (affine) and rates (reciprocal of affine).
  const auto p = interpolate(grids[0], truth);
  EXPECT_NEAR(p[calib::measured_metric_index("tpot_s_mean")], device[0] + truth, 1e-12);
  EXPECT_NEAR(p[calib::measured_metric_index("output_tok_s_per_gpu")], 8 / (device[0] + truth), 1e-9);
  const double all = fit_parameter(runs, grids, {0, 1, 2, 3, 4, 5});
  EXPECT_NEAR(all, truth, 1e-6);
  // Leave-one-group-out: fit on the other group, which carries the same parameter.
  EXPECT_NEAR(fit_parameter(runs, grids, {3, 4, 5}), truth, 1e-6);
  EXPECT_NEAR(fit_parameter(runs, grids, {0, 1, 2}), truth, 1e-6);
  // With one group measured 2 ms slower, the folds disagree: each recovers its own group.
  for (int i = 3; i < 6; ++i) runs[i] = measured(device[i], 8 * (i - 2), 3.23e-3, "b"), grids[i] = synthetic(device[i], 8 * (i - 2));
  EXPECT_NEAR(fit_parameter(runs, grids, {3, 4, 5}), 3.23e-3, 1e-6);
  EXPECT_NEAR(fit_parameter(runs, grids, {0, 1, 2}), truth, 1e-6);
}

// TTFTs simulated at a request latency of 20 ms, measured 80 ms slower than the engine part
// predicts: the fit recovers 80 ms from either TTFT metric, ignores every other metric, and is
// NaN when no row reports a TTFT.
TEST(ValidationFit, RequestLatencyIsRecoveredFromTheTtfts) {
  const std::size_t mean = calib::measured_metric_index("ttft_s_mean");
  const std::size_t median = calib::measured_metric_index("ttft_s_median");
  const std::size_t tpot = calib::measured_metric_index("tpot_s_mean");
  std::vector<calib::MeasuredRun> runs;
  std::vector<std::vector<double>> at;
  const double engine_s[] = {0.03, 0.2, 0.9};
  for (int i = 0; i < 3; ++i) {
    calib::MeasuredRun r;
    for (double& m : r.metrics) m = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> p(calib::kMeasuredMetricCount, std::numeric_limits<double>::quiet_NaN());
    r.metrics[i == 2 ? median : mean] = engine_s[i] + 0.08;
    p[mean] = p[median] = engine_s[i] + 0.02;
    r.metrics[tpot] = 1.0, p[tpot] = 0.01;  // far off, and not the latency's to fit
    runs.push_back(r);
    at.push_back(p);
  }
  EXPECT_NEAR(fit_request_latency(runs, at, 0.02, {0, 1, 2}), 0.08, 1e-4);
  EXPECT_NEAR(fit_request_latency(runs, at, 0.02, {2}), 0.08, 1e-4);
  for (auto& r : runs) r.metrics[mean] = r.metrics[median] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(fit_request_latency(runs, at, 0.02, {0, 1, 2})));
}

// A Llama-3.1-8B row on one H200 at concurrency 4, no metrics.
calib::MeasuredRun h200_row(const std::string& id, long long isl, long long osl) {
  calib::MeasuredRun r;
  for (double& m : r.metrics) m = std::numeric_limits<double>::quiet_NaN();
  r.id = id;
  r.file = "rows.csv";
  r.system = "hgx-h200";
  r.model = "llama-3.1-8b";
  r.plan = "tp=1";
  r.gpus = 1;
  r.isl = isl;
  r.osl = osl;
  r.concurrency = 4;
  return r;
}

// The rows as validate.yaml's base experiment runs them.
PreparedRows prepared(const std::vector<calib::MeasuredRun>& runs) {
  return prepare_rows(load_experiment(kRoot + "/experiments/validation/validate.yaml", kRoot), load_catalog(kRoot),
                      runs, {});
}

// `r` and a copy of it named `id` and changed by `change`, prepared; both must map.
template <class Change>
PreparedRows prepared_pair(const calib::MeasuredRun& r, const std::string& id, Change change) {
  calib::MeasuredRun other = r;
  other.id = id;
  change(other);
  PreparedRows rows = prepared({r, other});
  EXPECT_EQ(rows.rows.size(), 2u);
  return rows;
}

// A row's client length spread reaches the generator of the experiment it runs as: InferenceX's
// rows draw prompts and outputs down to 0.8 of the nominal lengths; others run them exactly. No
// row reuses a cached prompt.
// A measured row names its engine in the calibration layer's words and runs under the serving
// layer's engine of that name: every engine with a host-time model is recognised, and the reason a
// row of another engine is unmapped lists exactly those engines.
TEST(ValidationRows, EveryServingEngineIsOneTheMeasuredRowsCanName) {
  std::string listed;
  for (const auto& [name, engine] : serving::kEngineNames) {
    EXPECT_EQ(calib::map_engine(name).value, name);
    listed += (listed.empty() ? "" : ", ") + std::string(name);
  }
  EXPECT_EQ(listed, calib::kHostModelEngines);
}

TEST(ValidationRows, RangeRatioOfTheRowReachesItsGenerator) {
  calib::MeasuredRun r = h200_row("row", 1024, 8192);
  r.range_ratio = 0.8;
  const PreparedRows rows = prepared_pair(r, "exact", [](calib::MeasuredRun& x) { x.range_ratio = 1.0; });
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows.rows[0].experiment.workload.generator.range_ratio, 0.8);
  EXPECT_DOUBLE_EQ(rows.rows[1].experiment.workload.generator.range_ratio, 1.0);
  EXPECT_EQ(rows.rows[0].experiment.workload.generator.output_tokens.median, 8192);
  // A benchmark sends each prompt once; the closed loop cycles through the generated sessions
  // (4 x concurrency of them here), so no repeated one may be served from the prefix cache.
  EXPECT_TRUE(load_experiment(kRoot + "/experiments/validation/validate.yaml", kRoot).serving.prefix_caching);
  for (const auto& row : rows.rows) EXPECT_FALSE(row.experiment.serving.prefix_caching);
}

// A row's server limits replace the base experiment's, and its server's memory split becomes the
// memory fraction (weights + activations of the token budget + KV) that leaves the KV it allocated:
// vLLM's fraction as stated; SGLang's --mem-fraction-static (weights + KV) plus the activations it
// keeps outside it, less what the process held before loading; TensorRT-LLM's KV fraction of what
// the weights, a max_num_tokens forward's activations and the process's own memory leave. A row
// stating none keeps the base's (validate.yaml: 8192 tokens, 256 requests, 0.9).
TEST(ValidationRows, ServerLimitsOfTheRowReplaceTheBase) {
  calib::MeasuredRun r = h200_row("limits", 1024, 64);
  r.max_batch_tokens = 32768;
  r.max_sequences = 128;
  r.memory_fraction = 0.82;
  calib::MeasuredRun trt = h200_row("trt", 1024, 64);
  trt.engine = "trtllm";
  trt.kv_free_memory_fraction = 0.75;
  trt.max_batch_tokens = 2048;
  calib::MeasuredRun sgl = r;
  sgl.id = "sglang";
  sgl.engine = "sglang";
  calib::MeasuredRun base = h200_row("base", 1024, 64);
  r.engine = "vllm";
  const PreparedRows rows = prepared({r, trt, sgl, base});
  ASSERT_EQ(rows.rows.size(), 4u);
  EXPECT_EQ(rows.rows[0].experiment.serving.max_batch_tokens, 32768);
  EXPECT_EQ(rows.rows[0].experiment.serving.max_sequences, 128);
  EXPECT_DOUBLE_EQ(rows.rows[0].experiment.serving.memory_fraction, 0.82);
  // Llama-3.1-8B in BF16 on one H200: W of weights; A = its activations per token (hidden 4096,
  // q 32 x 128, FFN 14336, vocab 128,256, all BF16: 2 (4096 + 4096 + 2 x 4096 + 2 x 14336) + 4 x
  // 128,256 = 603,136 bytes) times the row's token budget.
  const Catalog catalog = load_catalog(kRoot);
  const double hbm = catalog.accelerators.get("h200").hbm_bytes;
  const double weights = serving::check_plan(rows.rows[1].experiment.model, rows.rows[1].experiment.systems[0],
                                             rows.rows[1].experiment.plans[0].deployment.plan, 1.0)
                             .weight_bytes_per_device;
  EXPECT_GT(weights, 1e10);
  constexpr double kActivationBytesPerToken = 2 * (4096 + 4096 + 2 * 4096 + 2 * 14336) + 4 * 128256;
  // TensorRT-LLM: KV = 0.75 (HBM - W - A), A for its 2,048-token max_num_tokens.
  const double a_trt = kActivationBytesPerToken * 2048;
  const double f_trt = rows.rows[1].experiment.serving.memory_fraction;
  EXPECT_NEAR(f_trt * hbm - weights - a_trt, 0.75 * (hbm - weights - a_trt), 1.0);
  // SGLang: KV = 0.82 HBM - W (its activations come out of the other 18%), A for 32,768 tokens.
  const double a_sgl = kActivationBytesPerToken * 32768;
  const double f_sgl = rows.rows[2].experiment.serving.memory_fraction;
  EXPECT_NEAR(f_sgl * hbm - weights - a_sgl, 0.82 * hbm - weights, 1.0);
  EXPECT_GT(f_sgl, 0.82 + 0.1);  // 19.8 GB of activations over ~150 GB
  // And a server process's memory before its weights (2.5 GiB, an SGLang log on H200) stays out of
  // the KV: all of it for SGLang, TensorRT-LLM's fraction of it (the fraction applies after it);
  // a vLLM row keeps the base's reserve (none).
  EXPECT_NEAR(rows.rows[2].experiment.serving.runtime_reserve_bytes, 2.5 * 1073741824.0, 1.0);
  EXPECT_NEAR(rows.rows[1].experiment.serving.runtime_reserve_bytes, 0.75 * 2.5 * 1073741824.0, 1.0);
  EXPECT_EQ(rows.rows[0].experiment.serving.runtime_reserve_bytes, 0.0);
  EXPECT_EQ(rows.rows[3].experiment.serving.max_batch_tokens, 8192);
  EXPECT_EQ(rows.rows[3].experiment.serving.max_sequences, 256);
  EXPECT_DOUBLE_EQ(rows.rows[3].experiment.serving.memory_fraction, 0.9);
}

// A row stating its server's admission runs it; the others keep the base's on-demand admission
// (validate.yaml).
TEST(ValidationRows, AdmissionOfTheRowReplacesTheBase) {
  calib::MeasuredRun reserve = h200_row("reserve", 1024, 64);
  reserve.admission = "reserve";
  calib::MeasuredRun on_demand = h200_row("on_demand", 1024, 64);
  on_demand.admission = "on_demand";
  const PreparedRows rows = prepared({reserve, on_demand, h200_row("base", 1024, 64)});
  ASSERT_EQ(rows.rows.size(), 3u);
  EXPECT_EQ(rows.rows[0].experiment.serving.admission, serving::Admission::kReserveFull);
  EXPECT_EQ(rows.rows[1].experiment.serving.admission, serving::Admission::kOnDemand);
  EXPECT_EQ(rows.rows[2].experiment.serving.admission, serving::Admission::kOnDemand);
}

// A DeepSeek-R1 MTP row on 8 x H200 whose server drafted `draft_tokens` a step (0: the card's).
calib::MeasuredRun mtp_row(const std::string& id, int draft_tokens) {
  calib::MeasuredRun r = h200_row(id, 1024, 64);
  r.model = "deepseek-r1";
  r.plan = "tp=8";
  r.gpus = 8;
  r.speculative = true;
  r.draft_tokens = draft_tokens;
  return r;
}

// A speculative row whose server drafted fewer tokens than the card's drafter runs its first
// positions; the fitted random-prompt acceptance is the card's whole drafter's, scaled then cut.
TEST(ValidationRows, StatedDraftTokensCutTheDrafter) {
  const calib::MeasuredRun r = mtp_row("mtp", 2);
  const PreparedRows rows = prepared_pair(r, "card", [](calib::MeasuredRun& x) { x.draft_tokens = 0; });
  ASSERT_EQ(rows.rows.size(), 2u);
  const wl::ModelSpec& m = rows.rows[0].experiment.model;
  ASSERT_EQ(m.speculative.draft_tokens, 3);
  const serving::SpecDecodeOptions two = resolve_speculative(rows.rows[0].experiment.plans[0].deployment, m);
  EXPECT_EQ(two.draft_tokens, 2);
  EXPECT_EQ(two.acceptance[0], m.speculative.acceptance[0]);
  EXPECT_EQ(two.acceptance[1], m.speculative.acceptance[1]);
  EXPECT_EQ(resolve_speculative(rows.rows[1].experiment.plans[0].deployment, m).draft_tokens, 3);
}

// A row whose server drafted more tokens a step than the card's drafter has positions is not
// mapped (the drafter cannot be stretched to positions it does not have); it is listed with why.
TEST(ValidationRows, MoreDraftTokensThanTheDrafterHasAreUnmapped) {
  const PreparedRows rows = prepared({mtp_row("mtp4", 4), mtp_row("mtp3", 3)});
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(rows.rows[0].run.id, "mtp3");
  ASSERT_EQ(rows.skipped.size(), 1u);
  EXPECT_EQ(rows.skipped[0].id, "mtp4");
  EXPECT_NE(rows.skipped[0].reason.find("drafted 4 tokens a step"), std::string::npos) << rows.skipped[0].reason;
  EXPECT_NE(rows.skipped[0].reason.find("has 3 positions"), std::string::npos) << rows.skipped[0].reason;
}

// A 512/64 row of h200_row that measured 100 output tok/s per GPU over a finite run of `prompts`.
calib::MeasuredRun finite_h200_row(const std::string& id, long long prompts) {
  calib::MeasuredRun r = h200_row(id, 512, 64);
  r.metrics[calib::measured_metric_index("output_tok_s_per_gpu")] = 100;
  r.prompts = prompts;
  return r;
}

// A row whose client sent a stated number of prompts runs as that finite run (InferenceX: 10 x
// concurrency, the first at once): no warm-up, every prompt answered, rates over the run's
// duration; a row without one keeps the steady-state window.
TEST(ValidationRows, StatedPromptsRunAsAFiniteRun) {
  const PreparedRows rows =
      prepared_pair(finite_h200_row("finite", 40), "steady", [](calib::MeasuredRun& x) { x.prompts = 0; });
  ASSERT_EQ(rows.rows.size(), 2u);
  const WorkloadConfig& w = rows.rows[0].experiment.workload;
  EXPECT_EQ(w.session_limit, 40);
  EXPECT_EQ(w.generated_sessions, 40);
  EXPECT_EQ(w.warmup_s, 0.0);
  EXPECT_EQ(rows.rows[1].experiment.workload.session_limit, 0);
  EXPECT_GT(rows.rows[1].experiment.workload.warmup_s, 0.0);
  // Predicted: every prompt answered within the run (predict_row refuses a run that did not finish).
  const auto engine = rows.rows[0].experiment.serving.engine_overhead;
  const std::vector<double> p = predict_row(rows.rows[0], engine);
  EXPECT_GT(p[calib::measured_metric_index("output_tok_s_per_gpu")], 0);
}

// A disaggregated row runs its stated prefill and decode replicas of its plan, every prompt's KV
// crossing between them; its GPUs must be exactly theirs, else it is unmapped with the reason.
TEST(ValidationRows, DisaggregatedRowsRunTheirPrefillAndDecodeReplicas) {
  calib::MeasuredRun r = finite_h200_row("disagg", 16);
  r.gpus = 3;
  r.prefill_replicas = 1;
  r.decode_replicas = 2;
  calib::MeasuredRun wrong = r;
  wrong.id = "wrong";
  wrong.gpus = 4;
  const PreparedRows rows = prepared({r, wrong});
  ASSERT_EQ(rows.rows.size(), 1u);
  const ServingConfig& s = rows.rows[0].experiment.serving;
  // The split a search builds (one path for both kinds of disaggregated row): each pool's replicas
  // on the plan, the prefill pool's the same as the decode pool's when the row states one.
  const Plan& plan = rows.rows[0].experiment.plans.at(0);
  EXPECT_EQ(plan.prefill_replicas, 1);
  EXPECT_EQ(plan.decode_replicas, 2);
  EXPECT_EQ(plan.prefill.plan.to_string(), plan.deployment.plan.to_string());
  EXPECT_EQ(s.prefill_replicas, 0) << "not the hand-written serving.disaggregation";
  ASSERT_EQ(rows.skipped.size(), 1u);
  EXPECT_EQ(rows.skipped[0].id, "wrong");
  EXPECT_NE(rows.skipped[0].reason.find("4 GPUs are not 1 prefill replicas of 1 GPUs + 2 decode replicas of 1"),
            std::string::npos)
      << rows.skipped[0].reason;
  // Predicted as a disaggregated run: every prompt answered (the decode replicas only decode).
  const std::vector<double> p = predict_row(rows.rows[0], s.engine_overhead);
  EXPECT_GT(p[calib::measured_metric_index("output_tok_s_per_gpu")], 0);
  EXPECT_GT(p[calib::measured_metric_index("ttft_s_median")], 0);
}

// Every engine the rows name (vLLM, SGLang, TensorRT-LLM) replays decode steps from CUDA/HIP
// graphs by default, so a row runs with the graph-replay launch floor: at concurrency 4 its
// decode steps, and so its TPOT, are shorter than the same row launched eagerly.
TEST(ValidationRows, DecodeReplaysFromGraphsAsTheEnginesDo) {
  calib::MeasuredRun r = h200_row("graph", 512, 64);
  const PreparedRows rows = prepared({r});
  ASSERT_EQ(rows.rows.size(), 1u);
  ASSERT_TRUE(rows.rows[0].experiment.plans[0].deployment.cuda_graph.value_or(false));
  ValidationRow eager = rows.rows[0];
  eager.experiment.plans[0].deployment.cuda_graph = false;
  const auto engine = rows.rows[0].experiment.serving.engine_overhead;
  const std::size_t tpot = calib::measured_metric_index("tpot_s_median");
  const double graph_s = predict_row(rows.rows[0], engine)[tpot], eager_s = predict_row(eager, engine)[tpot];
  EXPECT_LT(graph_s, eager_s);
  EXPECT_GT(graph_s, 0);
}

}  // namespace
}  // namespace agentsim::exp
