#include "experiments/run/validation_runner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/decode_helpers.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/runner.hpp"
#include "experiments/run/trtllm_bench_limits.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_for.hpp"
#include "sim/metrics/output_token_time.hpp"
#include "sim/metrics/percentile.hpp"
#include "sim/serving/first_chunk.hpp"
#include "sim/serving/replica_plan.hpp"
#include "sim/serving/spec_decode.hpp"
#include "sim/serving/step_coster.hpp"
#include "workloads/model/parallel_plan.hpp"
#include "workloads/sessions/session_generator.hpp"

namespace agentsim::exp {
namespace {

// HBM a server process holds before its weights load (CUDA context, NCCL communicators), which
// SGLang's and TensorRT-LLM's KV pools do not get (both size it from the memory free after loading
// or profiling): 140.4 GiB total, 12.25 GiB free and 125.65 GiB used by the weights after loading,
// so 2.5 GiB before (DeepSeek-V4-Pro FP8, TP 8 on H200, the SGLang log in
// github.com/SemiAnalysisAI/InferenceX issue #2128: "Load weight end. ... avail mem=12.25 GB, mem
// usage=125.65 GB", on "an H200 (~140.4 GB/GPU)"; SGLang's GB are GiB). Measured on an SGLang
// process and taken for TensorRT-LLM's too: the CUDA context and NCCL are the runtime's, not the
// engine's. Other rows keep the base experiment's reserve (validate.yaml: none).
constexpr double kLoadOverheadBytes = (140.4 - 12.25 - 125.65) * 1073741824.0;

// The row's one-plan experiment; throws core::Error located at the row's column.
ValidationRow row_experiment(const Experiment& base, const Catalog& catalog, const calib::MeasuredRun& row) {
  const auto at = [&](const char* col) { return core::SourceLocation{row.file, row.line, col}; };
  ValidationRow out{row, base, base.serving.engine};
  Experiment& e = out.experiment;
  e.model = catalog.models.get(row.model, at("model"));
  const hw::System system = catalog.systems.get(row.system, at("system"));
  if (!row.engine.empty()) {
    const auto eng = core::from_name(serving::kEngineNames, row.engine);
    if (!eng) throw core::Error(at("engine"), core::unknown_name_message("engine", row.engine, core::names_of(serving::kEngineNames)));
    out.engine = *eng;
  }
  e.serving.engine = out.engine;
  e.serving.engine_overhead = catalog.engine(out.engine);
  // The row's precision where it states one, each weight group with its format's own block scales
  // (an FP4 checkpoint of a dense model quantises its weights).
  try {
    e.model.precision.override_formats(row.weights_dtype, row.experts_dtype, row.kv_dtype, e.model.ffn.experts > 0);
  } catch (const core::Error& err) {
    throw core::Error(at("precision"), err.detail());
  }
  // The row's plan with the deployment's engine options at their defaults, checked as a YAML plan is.
  Plan plan;
  plan.label = row.plan;
  if (row.plan_smallest_fit) {
    // The source states no plan: the fewest devices whose HBM holds the weights and the KV of 256
    // requests of the row's length (assumed: a throughput run's batch; it puts Llama 2 70B FP8 on
    // one H200 and on two H100s).
    try {
      plan.deployment.plan = serving::choose_plan(e.model, system, e.serving.memory_fraction,
                                                  256.0 * static_cast<double>(row.isl + row.osl));
    } catch (const core::Error& err) {
      throw core::Error(at("plan"), "no plan fits: " + err.detail());
    }
    plan.label = plan.deployment.plan.to_string();
    out.run.plan = plan.label;
  } else {
    try {
      plan.deployment.plan = wl::parse_parallel_plan(row.plan);
    } catch (const core::Error& err) {
      throw core::Error(at("plan"), err.detail());
    }
  }
  plan.deployment.plan.engram_on_host = e.model.engram.host_resident;
  // vLLM, SGLang and TensorRT-LLM replay decode steps from CUDA/HIP graphs by default (up to
  // the engine's captured batch, engines.yaml graph_max_sequences); prefill and mixed steps launch
  // eagerly. Set, not left to the default: a base experiment with a constant step_overhead (run
  // without --cv) would otherwise price the measured runs' decode eagerly.
  plan.deployment.cuda_graph = true;
  if (row.speculative && !e.model.speculative.present()) {
    throw core::Error(at("spec_method"), "model " + e.model.name + " ships no drafter to speculate with");
  }
  plan.deployment.spec_mode = row.speculative ? SpecMode::kAuto : SpecMode::kOff;
  // SGLang's two-batch overlap where the row states it (the wide-EP set's "TBO").
  if (row.two_batch_overlap) plan.deployment.overlap = serving::Overlap::kTwoBatch;
  // The server's draft tokens where the row states them (fewer than the card's: its first
  // positions); a stated acceptance length is the row's dataset's: that drafter scaled to it.
  if (row.speculative && (row.draft_tokens > 0 || std::isfinite(row.accept_len))) {
    const serving::SpecDecodeOptions card = resolve_speculative(plan.deployment, e.model);
    if (row.draft_tokens > card.draft_tokens) {
      throw core::Error(at("spec_method"), "the server drafted " + std::to_string(row.draft_tokens) +
                                               " tokens a step; model " + e.model.name + "'s drafter has " +
                                               std::to_string(card.draft_tokens) + " positions");
    }
    serving::SpecDecodeOptions s = serving::first_drafts(card, row.draft_tokens);
    if (std::isfinite(row.accept_len)) s = serving::with_tokens_per_step(s, row.accept_len);
    plan.deployment.spec = s;
    plan.deployment.spec_mode = SpecMode::kExplicit;
  }
  out.fit_acceptance = row.speculative && !std::isfinite(row.accept_len) && row.random_prompts;
  // The server's limits where the row's recipe states them (inferencex_batch_limits.hpp), or a
  // trtllm-bench run's own (trtllm_bench_limits.hpp); the plan must fit in the memory the server took.
  if (row.trtllm_bench) {
    // trtllm-bench admits as TensorRT-LLM does by default: capacity_scheduler_policy
    // GUARANTEED_NO_EVICT, KV for a request's whole prompt and answer reserved at admission
    // (tensorrt_llm/llmapi/llm_args.py, SchedulerConfig); its runs report throughput only.
    e.serving.admission = serving::Admission::kReserveFull;
  }
  if (row.trtllm_bench && row.max_batch_tokens == 0 && row.max_sequences == 0) {
    // A row that states no KV fraction ran trtllm-bench's default --kv_cache_free_gpu_mem_fraction
    // (perf-overview.md: "the default setting of 0.90").
    const double kv_fraction = row.kv_free_memory_fraction > 0 ? row.kv_free_memory_fraction : 0.9;
    try {
      const TrtllmBenchLimits l = trtllm_bench_limits(e.model, system, plan.deployment.plan, row.isl, row.osl, kv_fraction);
      e.serving.max_batch_tokens = l.max_num_tokens;
      e.serving.max_sequences = l.max_batch_size;
    } catch (const core::Error& err) {
      throw core::Error(at("plan"), err.detail());
    }
  }
  if (row.max_batch_tokens > 0) e.serving.max_batch_tokens = row.max_batch_tokens;
  if (row.max_sequences > 0) e.serving.max_sequences = row.max_sequences;
  if (!row.admission.empty()) {
    const auto a = core::from_name(serving::kAdmissionNames, row.admission);
    if (!a) {
      throw core::Error(at("admission"),
                        core::unknown_name_message("admission", row.admission, core::names_of(serving::kAdmissionNames)));
    }
    e.serving.admission = *a;
  }
  // The row's server states its memory split in its own terms; serving.memory_fraction is the
  // share of HBM for weights, the activations of a full token budget and the KV cache
  // (resolve_run.cpp, hbm_kv_tokens), so each is converted to the KV the server allocated.
  if (row.memory_fraction > 0 || row.kv_free_memory_fraction > 0) {
    const double hbm = system.accelerator.hbm_bytes;
    const double weights = serving::check_plan(e.model, system, plan.deployment.plan, 1.0).weight_bytes_per_device;
    const double activations = activation_budget_bytes(e, plan.deployment.plan);
    if (row.kv_free_memory_fraction > 0) {
      // TensorRT-LLM: KV = fraction x (HBM - the peak of a profiling forward of max_num_tokens:
      // weights and activations), tensorrt_llm/_torch/pyexecutor/_util.py cal_max_tokens.
      e.serving.memory_fraction =
          std::clamp((weights + activations + row.kv_free_memory_fraction * (hbm - weights - activations)) / hbm, 0.0, 1.0);
      // The fraction applies after the process's own memory too (in the profiling's peak).
      if (e.serving.runtime_reserve_bytes == 0) {
        e.serving.runtime_reserve_bytes = row.kv_free_memory_fraction * kLoadOverheadBytes;
      }
    } else if (out.engine == serving::Engine::kSglang) {
      // SGLang's --mem-fraction-static is weights + KV pool; activations and graphs take the rest
      // (python/sglang/srt/server_args.py; model_runner profile_max_num_token: KV = free memory after
      // loading - HBM x (1 - mem_fraction_static)).
      e.serving.memory_fraction = std::clamp((row.memory_fraction * hbm + activations) / hbm, 0.0, 1.0);
      // Its "free after loading" is also short of what the process held before the weights
      // (CUDA context, NCCL), measured below; a base experiment's own reserve is kept.
      if (e.serving.runtime_reserve_bytes == 0) e.serving.runtime_reserve_bytes = kLoadOverheadBytes;
    } else {
      e.serving.memory_fraction = row.memory_fraction;
    }
  }
  const serving::PlanCheck check = serving::check_plan(e.model, system, plan.deployment.plan, e.serving.memory_fraction);
  if (!check.ok) throw core::Error(at("plan"), check.reason);
  const int devices = plan.deployment.plan.devices();
  if (row.prefill_replicas > 0) {
    // Disaggregated: the prefill replicas run theirs (`prefill_plan`, or `plan` when the row states
    // one for both roles), the decode replicas `plan`, every prompt's KV crossing between them: the
    // split the search builds (experiments/run/disagg_plans.hpp).
    DeploymentConfig pre = plan.deployment;
    if (!row.prefill_plan.empty()) {
      try {
        pre.plan = wl::parse_parallel_plan(row.prefill_plan);
      } catch (const core::Error& err) {
        throw core::Error(at("plan"), "prefill " + err.detail());
      }
      pre.plan.engram_on_host = e.model.engram.host_resident;
    }
    const serving::PlanCheck pc = serving::check_plan(e.model, system, pre.plan, e.serving.memory_fraction);
    if (!pc.ok) throw core::Error(at("plan"), "prefill " + pc.reason);
    const long long gpus = static_cast<long long>(row.prefill_replicas) * pre.plan.devices() +
                           static_cast<long long>(row.decode_replicas) * devices;
    if (gpus != row.gpus) {
      throw core::Error(at("gpus"), std::to_string(row.gpus) + " GPUs are not " + std::to_string(row.prefill_replicas) +
                                        " prefill replicas of " + std::to_string(pre.plan.devices()) + " GPUs + " +
                                        std::to_string(row.decode_replicas) + " decode replicas of " +
                                        std::to_string(devices));
    }
    plan.prefill = pre;
    plan.prefill_label = pre.plan.to_string();
    plan.prefill_replicas = row.prefill_replicas;
    plan.decode_replicas = row.decode_replicas;
    if (row.decode_max_sequences > 0) e.serving.decode_max_sequences = row.decode_max_sequences;
    if (row.decode_round_robin) e.serving.decode_router = serving::RouterPolicy::kRoundRobin;
  } else if (row.gpus % devices != 0) {
    throw core::Error(at("gpus"), std::to_string(row.gpus) + " GPUs are not a whole number of " +
                                      std::to_string(devices) + "-GPU replicas");
  }
  e.systems = {system};
  e.plans = {plan};
  // As many replicas as the measurement's GPUs hold (not the system filled: a 1-GPU row is one GPU).
  e.serving.replicas = std::max(1, row.gpus / std::max(1, devices));
  // One-turn sessions of isl tokens in, osl out (each uniform down to range_ratio of it, as the
  // row's client drew them), sent back to back.
  WorkloadConfig& w = e.workload;
  w.mode = ReplayMode::kClosedLoop;
  w.use_generator = true;
  w.trace_path.clear();
  w.generator = wl::GeneratorConfig{};
  w.generator.turns = {1, 1};
  w.generator.initial_context_tokens = {static_cast<double>(row.isl), static_cast<double>(row.isl)};
  w.generator.output_tokens = {static_cast<double>(row.osl), static_cast<double>(row.osl)};
  w.generator.max_context_tokens = row.isl + row.osl;
  if (row.osl_max > 0) {  // the dataset's answer lengths drawn (a reasoning model's long tail)
    w.generator.output_tokens = {row.osl_median, row.osl_p90, 1, static_cast<double>(row.osl_max)};
    w.generator.max_context_tokens = row.isl + row.osl_max;
  }
  w.generator.range_ratio = row.range_ratio;  // the client's length spread (InferenceX: 0.8)
  // A serving benchmark sends each prompt once (InferenceX: 10 x concurrency distinct random-token
  // prompts), while the closed loop cycles through the generated sessions: a repeated one must not
  // find its prompt in the prefix cache.
  e.serving.prefix_caching = false;
  e.serving.recv_interval_steps = row.recv_interval_steps;  // the server's launch flag (SGLang)
  if (row.overlap_scheduler_off) {  // the recipe's (calibration/inferencex_overlap_scheduler.hpp)
    e.serving.overlap_scheduler_set = true;
    e.serving.overlap_scheduler = false;
  }
  for (const auto& [table, id] : row.kernels) {  // the recipe's MoE runner (calibration/inferencex_moe_backend.hpp)
    e.serving.kernels[table] = id;
    e.serving.kernels_at[table] = at("kernels");
  }
  e.serving.balance_timeout_steps = row.balance_timeout_steps;  // TensorRT-LLM's (serving::ContextWait)
  e.serving.batch_wait_steps = row.batch_wait_steps;
  e.serving.batch_wait_max_tokens_ratio = row.batch_wait_max_tokens_ratio;
  if (row.scenario == "offline" || row.scenario == "server") {
    // MLPerf Offline: every query at once, so each replica runs as many requests as its engine
    // admits (the running cap) with one more waiting; the saturated steady state is predicted.
    // Server rows run this first to bound their Poisson rate (server_slo_rate).
    const long long cap = static_cast<long long>(e.serving.max_sequences > 0 ? e.serving.max_sequences : 1024) *
                          limit_ranks(e, plan.deployment.plan);
    const long long agents = static_cast<long long>(e.serving.replicas) * (cap + 1);
    out.run.concurrency = static_cast<double>(std::min<long long>(agents, 1'000'000));
    // The replicas are independent data-parallel copies, each fed its share of the queries (MLPerf's
    // harnesses split the queries over them): one routing pod per replica, and in the saturated
    // closed loop one pod simulated for all (serving.pod_sampling: representative).
    e.serving.pods = 0;
    e.serving.pod_sampling = PodSampling::kRepresentative;
  }
  w.concurrency = {static_cast<int>(out.run.concurrency)};
  w.levels = {out.run.concurrency};
  w.random_start = false;
  w.start_spread_s = 0;
  if (row.prompts > 0) {
    // The client's finite run: its prompts, the first `concurrency` at once, measured from the
    // first send to the last answer (burst and drain included). The window only bounds it: the
    // run ends when it drains, at 100 ms per token of a request (4x the slowest mapped row's
    // measured TPOT; prompt tokens counted too) per wave of prompts, plus one wave.
    w.generated_sessions = static_cast<int>(std::min<long long>(row.prompts, 10'000'000));
    w.session_limit = row.prompts;
    w.warmup_s = 0;
    // The server runs at most max_sequences of them at once, so a run of prompts all queued at once
    // (trtllm-bench) lasts as many waves as that cap allows, and a long prompt's prefill can
    // outlast its answer.
    const double running = e.serving.max_sequences > 0 ? std::min<double>(row.concurrency, e.serving.max_sequences)
                                                       : row.concurrency;
    const double waves = static_cast<double>(row.prompts) / std::max(1.0, running);
    w.window_s = (waves + 1) * 0.1 * static_cast<double>(row.isl + row.osl);
  } else if (!row.scenario.empty()) {
    // A saturated batch decodes slower than any interactive row: warm-up and window hold one and two
    // request lifetimes at 150 ms per output token (MLPerf's Server TPOT limits are 80-200 ms); with
    // drawn answers the warm-up holds the longest one's, so the running mix is the steady state's.
    w.generated_sessions = std::max(64, static_cast<int>(out.run.concurrency) * 2);
    w.warmup_s = std::max(30.0, 0.15 * static_cast<double>(row.osl_max > 0 ? row.osl_max : row.osl));
    w.window_s = std::max(60.0, 0.3 * static_cast<double>(row.osl));
  } else {
    w.generated_sessions = std::max(64, static_cast<int>(row.concurrency) * 4);
    // Long answers outlast the base window: warm-up and window hold at least one and two request
    // lifetimes at 25 ms per output token (slower than any mapped row's measured TPOT, 1k/8k rows included).
    w.warmup_s = std::max(w.warmup_s, 0.025 * static_cast<double>(row.osl));
    w.window_s = std::max(w.window_s, 0.05 * static_cast<double>(row.osl));
  }
  e.record_requests = true;
  e.record_steps = false;
  return out;
}

// `first_chunk_token`: the output token whose production sends the first streamed chunk
// (serving::first_chunk_output_token); the measured TTFT is that chunk's arrival at the client.
std::vector<double> predictions(const RunResult& r, long long first_chunk_token, double pue, double idle_w) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> p(calib::kMeasuredMetricCount, nan);
  const auto set = [&](const char* name, double v) {
    if (std::isfinite(v) && v > 0) p[calib::measured_metric_index(name)] = v;
  };
  const auto& s = r.summary;
  const double gpus = r.power.accelerators > 0 ? r.power.accelerators : 1;
  set("output_tok_s_per_gpu", s.output_tok_s / gpus);
  set("total_tok_s_per_gpu", s.total_tok_s / gpus);
  set("agent_output_tok_s", s.agent_output_tok_s_p50);
  std::vector<double> ttft;
  ttft.reserve(r.requests.size());
  for (const auto& q : r.requests) ttft.push_back(metrics::output_token_time_s(q, first_chunk_token) - q.arrival_s);
  if (!ttft.empty()) {
    double sum = 0;
    for (double t : ttft) sum += t;
    set("ttft_s_mean", sum / static_cast<double>(ttft.size()));
    set("ttft_s_median", metrics::percentile(ttft, 50));
  }
  set("tpot_s_mean", s.itl_s_mean);
  // The median of per-request TPOT is the reciprocal of the median per-request speed.
  set("tpot_s_median", 1.0 / s.agent_output_tok_s_p50);
  if (r.power.accelerators_total > 0) {
    // The run's own GPUs, as InferenceX averages them: its power aggregation divides the GPU
    // monitor's energy by the GPUs it observed, TP x PP of the run (github.com/SemiAnalysisAI/
    // InferenceX utils/aggregate_power.py, "Expected single-node GPU count from TP * PP * PCP");
    // a TP4 run on an 8-GPU system is not averaged with the 4 it leaves idle.
    set("power_w_per_gpu", serving_accelerator_w(r.power, idle_w));
    // The systems' wall power (accelerators, host CPUs and memory, NICs, scale-up switches, fans,
    // PSU loss; before PUE) per accelerator, as MLPerf Power meters it at the wall.
    set("wall_power_w_per_gpu", r.power.power_w / std::max(1.0, pue) / r.power.accelerators_total);
  }
  return p;
}

// The row's experiment with its engine priced by `engine` and, for a fit_acceptance row, the drafter
// scaled to `tokens_per_step`.
Experiment priced(const ValidationRow& row, const serving::EngineOverhead& engine, double tokens_per_step) {
  Experiment e = row.experiment;
  e.serving.engine_overhead = engine;
  if (row.fit_acceptance && std::isfinite(tokens_per_step)) {
    // `tokens_per_step` is the card's whole drafter's on these prompts: its per-position
    // acceptance scaled to it, then the positions the server drafted.
    DeploymentConfig& d = e.plans[0].deployment;
    DeploymentConfig card = d;
    card.spec_mode = SpecMode::kAuto;
    d.spec = serving::first_drafts(serving::with_tokens_per_step(resolve_speculative(card, e.model), tokens_per_step),
                                   row.run.draft_tokens);
    d.spec_mode = SpecMode::kExplicit;
  }
  return e;
}

// One Poisson run of a Server row at `rate_per_s` requests/s, with its p99 TTFT (first token) and
// TPOT ((last - first) / (tokens - 1), MLPerf's per-request TPOT) over the requests completing in
// the window. A run whose completions fall short of 90% of the offered requests is overloaded.
ServerPoint server_run(const ValidationRow& row, Experiment e, double rate_per_s, RunResult* result) {
  WorkloadConfig& w = e.workload;
  w.mode = ReplayMode::kPoisson;
  w.levels = {rate_per_s};
  w.concurrency.clear();
  // Warm-up and window: requests living at the limits (TTFT + TPOT x osl), one and two of them.
  const double life_s = row.run.ttft_p99_limit_s + row.run.tpot_p99_limit_s * static_cast<double>(row.run.osl);
  w.warmup_s = std::max(30.0, life_s);
  w.window_s = std::max(60.0, 2 * life_s);
  w.generated_sessions = static_cast<int>(std::clamp(rate_per_s * (w.warmup_s + w.window_s) * 1.2 + 64, 64.0, 2e6));
  const wl::Trace trace = wl::generate_sessions(w.generator, w.generated_sessions, e.seed);
  RunResult r = run_point(e, trace, rate_per_s);
  ServerPoint out;
  out.rate_per_s = rate_per_s;
  std::vector<double> ttft, tpot;
  for (const auto& q : r.requests) {
    ttft.push_back(q.first_token_s - q.arrival_s);
    if (q.output_tokens > 1) tpot.push_back((q.last_token_s - q.first_token_s) / static_cast<double>(q.output_tokens - 1));
  }
  out.completed = static_cast<long long>(r.requests.size());
  if (!ttft.empty()) out.ttft_p99_s = metrics::percentile(ttft, 99);
  if (!tpot.empty()) out.tpot_p99_s = metrics::percentile(tpot, 99);
  const double offered = rate_per_s * w.window_s;
  out.meets = !ttft.empty() && static_cast<double>(out.completed) >= 0.9 * offered &&
              out.ttft_p99_s <= row.run.ttft_p99_limit_s && (tpot.empty() || out.tpot_p99_s <= row.run.tpot_p99_limit_s);
  if (result != nullptr) *result = std::move(r);
  return out;
}

bool one_role(const calib::MeasuredRun& r) { return r.scenario == "prefill-only" || r.scenario == "decode-only"; }

// A row measuring one role's replica alone at a fixed batch (calib::MeasuredRun::
// role_batch_per_device): its steady step, priced by the step-cost engine every simulated step
// uses (resolve_run's options: the row's plan, engine, overlap, CUDA graphs). Prefill: the
// replica's token budget filled with whole isl-token prompts and one partial chunk, reported as
// prompt tokens/s per GPU (the measured input rate, in total_tok_s_per_gpu); decode: that many
// sequences at isl tokens of context, one token each a step.
std::vector<double> role_step_predictions(const Experiment& e, const calib::MeasuredRun& run) {
  const RunSpec spec = resolve_run(e, e.plans[0]);
  const int devices = spec.devices_per_replica();
  const long long batch = run.role_batch_per_device * devices;
  serving::StepBatch b;
  if (run.scenario == "prefill-only") {
    for (long long left = batch; left > 0;) {
      const long long chunk = std::min(left, run.isl);
      b.prefills.push_back(serving::PrefillChunk{chunk, 0, chunk == run.isl});
      left -= chunk;
    }
  } else {
    b.decodes.assign(static_cast<std::size_t>(batch), serving::DecodeItem{run.isl});
  }
  const serving::StepCost c = serving::StepCoster::price_once(b, e.model, spec.system, spec.replica.cost, false);
  std::vector<double> p(calib::kMeasuredMetricCount, std::numeric_limits<double>::quiet_NaN());
  if (!(c.total_s > 0)) return p;
  const double per_gpu_s = c.total_s * static_cast<double>(devices);
  if (run.scenario == "prefill-only") {
    p[calib::measured_metric_index("total_tok_s_per_gpu")] = static_cast<double>(batch) / per_gpu_s;
  } else {
    p[calib::measured_metric_index("output_tok_s_per_gpu")] = static_cast<double>(batch) / per_gpu_s;
    p[calib::measured_metric_index("agent_output_tok_s")] = 1.0 / c.total_s;
    p[calib::measured_metric_index("tpot_s_mean")] = c.total_s;
    p[calib::measured_metric_index("tpot_s_median")] = c.total_s;
  }
  return p;
}

}  // namespace

ServerPoint server_probe(const ValidationRow& row, const serving::EngineOverhead& engine, double rate_per_s) {
  if (row.run.scenario != "server") {
    throw core::Error(core::SourceLocation{row.run.file, row.run.line, ""}, "not a Server-scenario row");
  }
  return server_run(row, priced(row, engine, std::numeric_limits<double>::quiet_NaN()), rate_per_s, nullptr);
}

namespace {

// The highest Poisson rate meeting the row's limits, bisected within 2% below the saturated closed
// loop's request rate (`saturated_rate_per_s`); its run in `result`.
ServerPoint server_bisect(const ValidationRow& row, const Experiment& e, double saturated_rate_per_s, RunResult* result) {
  double lo = 0, hi = saturated_rate_per_s;
  ServerPoint best;
  RunResult best_run;
  const ServerPoint top = server_run(row, e, hi, &best_run);
  if (top.meets) {
    if (result != nullptr) *result = std::move(best_run);
    return top;
  }
  for (int i = 0; i < 12 && hi - lo > 0.02 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    RunResult r;
    const ServerPoint p = server_run(row, e, mid, &r);
    if (p.meets) {
      lo = mid, best = p, best_run = std::move(r);
    } else {
      hi = mid;
    }
  }
  if (result != nullptr) *result = std::move(best_run);
  return best;
}

}  // namespace

ServerPoint server_slo_rate(const ValidationRow& row, const serving::EngineOverhead& engine) {
  if (row.run.scenario != "server") {
    throw core::Error(core::SourceLocation{row.run.file, row.run.line, ""}, "not a Server-scenario row");
  }
  const Experiment e = priced(row, engine, std::numeric_limits<double>::quiet_NaN());
  const wl::Trace trace = wl::generate_sessions(e.workload.generator, e.workload.generated_sessions, e.seed);
  const RunResult sat = run_point(e, trace, e.workload.levels[0]);
  const double rate = sat.summary.output_tok_s / std::max<double>(1, static_cast<double>(row.run.osl));
  return server_bisect(row, e, rate, nullptr);
}

PreparedRows prepare_rows(const Experiment& base, const Catalog& catalog, const std::vector<calib::MeasuredRun>& runs,
                          const std::vector<std::string>& strict_files) {
  PreparedRows out;
  for (const auto& row : runs) {
    try {
      out.rows.push_back(row_experiment(base, catalog, row));
    } catch (const core::Error& err) {
      if (std::find(strict_files.begin(), strict_files.end(), row.file) != strict_files.end()) throw;
      const std::string col = err.where().key_path;
      out.skipped.push_back(calib::SkippedRow{row.file, row.line, row.id, (col.empty() ? "" : col + ": ") + err.detail()});
    }
  }
  return out;
}

std::vector<double> predict_row(const ValidationRow& row, const serving::EngineOverhead& engine,
                                double tokens_per_step) {
  Experiment e = priced(row, engine, tokens_per_step);
  if (one_role(row.run)) return role_step_predictions(e, row.run);
  const wl::Trace trace = wl::generate_sessions(e.workload.generator, e.workload.generated_sessions, e.seed);
  RunResult r = run_point(e, trace, e.workload.levels[0]);
  // A slow prediction (e.g. a fit trying a large host time) can outlast the window sized for
  // it: widen warm-up and window 4x, up to twice, before giving up. A finite run must finish.
  const long long limit = e.workload.session_limit;
  const auto short_of = [&](const RunResult& x) {
    return x.summary.requests == 0 || (limit > 0 && x.summary.requests < limit);
  };
  for (int widen = 0; widen < 2 && short_of(r); ++widen) {
    e.workload.warmup_s *= 4;
    e.workload.window_s *= 4;
    r = run_point(e, trace, e.workload.levels[0]);
  }
  if (short_of(r)) {
    throw core::Error(core::SourceLocation{row.run.file, row.run.line, "concurrency"},
                      limit > 0 ? "the finite run of " + std::to_string(limit) + " prompts did not finish in " +
                                      std::to_string(e.workload.window_s) + " simulated s"
                                : "no request completed in the measurement window; lengthen the base experiment's window");
  }
  const long long first_chunk = serving::first_chunk_output_token(row.engine, row.run.stream_interval_tokens);
  const double idle_w = e.systems.at(0).accelerator.idle_w;
  if (row.run.scenario == "server") {
    // MLPerf Server: the rate its p99 limits allow, bisected below the saturated rate just run.
    const double rate = r.summary.output_tok_s / std::max<double>(1, static_cast<double>(row.run.osl));
    RunResult at;
    const ServerPoint p = server_bisect(row, e, rate, &at);
    std::vector<double> out(calib::kMeasuredMetricCount, std::numeric_limits<double>::quiet_NaN());
    if (p.rate_per_s > 0) out = predictions(at, first_chunk, e.power.pue, idle_w);
    return out;
  }
  return predictions(r, first_chunk, e.power.pue, idle_w);
}

std::vector<std::vector<double>> predict_measured_runs(const Experiment& base, const std::string& root,
                                                       const std::vector<calib::MeasuredRun>& runs,
                                                       const std::string& measured_file, int threads) {
  const Catalog catalog = load_catalog(root);
  std::vector<calib::MeasuredRun> located = runs;
  for (auto& r : located) {
    if (r.file.empty()) r.file = measured_file;
  }
  const PreparedRows prep = prepare_rows(base, catalog, located, {measured_file});
  std::vector<std::vector<double>> out(prep.rows.size());
  core::parallel_for(prep.rows.size(), threads, [&](std::size_t i) {
    out[i] = predict_row(prep.rows[i], prep.rows[i].experiment.serving.engine_overhead);
  });
  return out;
}

}  // namespace agentsim::exp
