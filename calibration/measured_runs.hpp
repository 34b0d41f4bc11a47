#pragma once
// Measured serving runs to validate predictions against: one row per measured
// point (system, model, deployment, workload shape, load) with whatever metrics
// the source reported. Schema: docs/calibration.md, "Measured runs".
#include <istream>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace agentsim::calib {

// The metrics a measured run may report (NaN = not reported), in column order.
inline constexpr std::string_view kMeasuredMetrics[] = {
    "output_tok_s_per_gpu",  // output tokens/s of the whole system / GPUs
    "total_tok_s_per_gpu",   // (input + output) tokens/s / GPUs
    "agent_output_tok_s",    // per-user output speed, 1 / TPOT
    "ttft_s_mean",
    "ttft_s_median",         // median over requests (robust to a few stalled requests)
    "tpot_s_mean",
    "tpot_s_median",
    "power_w_per_gpu",
    "wall_power_w_per_gpu",  // the measured system's wall power (hosts, NICs, switches, fans, PSU loss) / GPUs
};
inline constexpr std::size_t kMeasuredMetricCount = std::size(kMeasuredMetrics);

struct MeasuredRun {
  std::string id;        // unique per file
  std::string source;    // where it was read (a PROVENANCE entry)
  std::string system;    // hardware catalog system, e.g. "hgx-h200"
  std::string model;     // model catalog name
  std::string plan;      // e.g. "tp=8,ep=1"
  int gpus = 0;          // accelerators the measurement used
  long long isl = 0;     // input tokens per request
  long long osl = 0;     // output tokens per request
  double concurrency = 0;  // closed-loop clients
  double metrics[kMeasuredMetricCount];  // by kMeasuredMetrics index; NaN when absent
  int line = 0;          // line in the file, for messages
  // Filled by the adapters of measured_sources.hpp (the measured-runs schema: `engine`
  // column when present, speculation off, the catalog model's precision).
  std::string file;      // the file read
  std::string source_key;  // source id (a PROVENANCE entry), for de-duplication across files
  std::string engine;    // serving engine name (serving::kEngineNames); "" = the base experiment's
  bool speculative = false;  // the model's drafter (MTP) on
  double accept_len = std::numeric_limits<double>::quiet_NaN();  // stated mean tokens per verify step; NaN: not stated
  bool random_prompts = false;  // random-token prompts (InferenceX): draft acceptance is not the card's
  // Draft tokens per step the server was launched with (SGLang's --speculative-num-steps,
  // TensorRT-LLM's num_nextn_predict_layers); 0 = the model's drafter as it is. Fewer than the
  // drafter has: its first positions. InferenceX rows: their recipe's (inferencex_draft_tokens.hpp).
  int draft_tokens = 0;
  // Output tokens per streamed chunk the server was launched with (SGLang --stream-interval,
  // TensorRT-LLM stream_interval); 1 = every token streamed. InferenceX rows: their recipe's
  // (inferencex_stream_interval.hpp). Which token the client's first chunk (its TTFT) waits
  // for is the engine's rule: serving::first_chunk_output_token.
  int stream_interval_tokens = 1;
  // SGLang's --scheduler-recv-interval the server was launched with (serving::ReplicaOptions::
  // recv_interval_steps); 1 = SGLang's default, and every other engine. InferenceX rows: their
  // recipe's (inferencex_recv_interval.hpp).
  int recv_interval_steps = 1;
  // The server ran without the engine's overlap scheduler (serving.overlap_scheduler false): every
  // step waits for all its per-sequence and per-token host work. InferenceX rows: their recipe's
  // (inferencex_overlap_scheduler.hpp); false for every other row (the engine's catalog value).
  bool overlap_scheduler_off = false;
  // Kernel implementations the server was launched with where they are not its engine's (op table ->
  // implementation id, as serving.kernels; e.g. TensorRT-LLM's moe_config.backend DEEPGEMM:
  // grouped_gemm_fp8 -> deepgemm). InferenceX rows: their recipe's (inferencex_moe_backend.hpp).
  std::map<std::string, std::string> kernels;
  // TensorRT-LLM's context waits the server was launched with (serving::ContextWait): its
  // attention-DP balance timeout in steps (attention_dp_config.timeout_iters with enable_balance;
  // 0 = off) and its batch waiting (batch_wait_timeout_iters, batch_wait_max_tokens_ratio; 0 =
  // off). InferenceX rows: their recipe's (inferencex_context_wait.hpp).
  int balance_timeout_steps = 0;
  int batch_wait_steps = 0;
  double batch_wait_max_tokens_ratio = 0;
  // The engine's batch limits the server was launched with: tokens one step may schedule (vLLM's
  // max_num_batched_tokens, SGLang's prefill budget min(--chunked-prefill-size,
  // --max-prefill-tokens), TensorRT-LLM's max_num_tokens) and requests running at once (SGLang's
  // --max-running-requests, TensorRT-LLM's max_batch_size); 0 = the base experiment's. InferenceX
  // rows: their recipe's (inferencex_batch_limits.hpp).
  int max_batch_tokens = 0;
  int max_sequences = 0;
  // The fraction of HBM the server takes for weights and KV (SGLang's --mem-fraction-static, vLLM's
  // --gpu-memory-utilization); 0 = the base experiment's. InferenceX SGLang rows: their recipe's.
  double memory_fraction = 0;
  // TensorRT-LLM's KV budget instead: kv_cache_config.free_gpu_memory_fraction, the fraction of the
  // memory left after the weights; 0 = not stated. InferenceX TensorRT-LLM rows: their recipe's.
  double kv_free_memory_fraction = 0;
  // How the server admits a request (serving.admission): "reserve" (KV for its whole prompt and
  // answer free at admission, never preempting) or "on_demand"; "" = the base experiment's. MLPerf
  // rows of AMD's vLLM harness: reserve, its scheduler admitting prompts only above a free-KV-block
  // floor (mlperf_csv.cpp).
  std::string admission;
  // A `trtllm-bench throughput` run: where the row states no batch limits, the server's
  // max_batch_size and max_num_tokens are that tool's heuristic for the row's model and plan
  // (experiments/run/trtllm_bench_limits.hpp). TensorRT-LLM's perf-overview rows.
  bool trtllm_bench = false;
  // When the run was measured, "YYYY-MM-DD" where the source states it (serving-points-2's
  // InferenceX rows: "CI run DATE" in their notes; the measured-runs schema's `run_date` column);
  // "" otherwise.
  std::string run_date;
  // The client's random-range-ratio: each request's prompt and output lengths uniform integers in
  // [floor(ratio x isl), isl] and [floor(ratio x osl), osl] (wl::GeneratorConfig::range_ratio);
  // 1 = every request exactly isl/osl. InferenceX rows: 0.8.
  double range_ratio = 1.0;
  // The dataset's answers drawn, not fixed: a log-normal of this median and 90th percentile, cut
  // at osl_max tokens; 0 = every answer osl tokens. MLPerf DeepSeek-R1 rows: the median, p90 and
  // longest of the answers in the results' TEST06 accuracy logs (answer_lengths.csv, mlperf_csv.cpp).
  double osl_median = 0, osl_p90 = 0;
  long long osl_max = 0;
  // Requests the client sent in all, `concurrency` of them at once and then one per completed
  // answer (a finite run: its burst and drain are in the measured rates); 0 = not stated, the
  // steady state is predicted. InferenceX rows: 10 x concurrency (inferencex_client.hpp).
  long long prompts = 0;
  // A prefill/decode-disaggregated deployment: that many prefill replicas running `prefill_plan`
  // ("" = `plan`) and decode replicas running `plan`, every prompt's KV crossing from the first to
  // the second; 0 = unified replicas, gpus / plan devices of them.
  int prefill_replicas = 0, decode_replicas = 0;
  std::string prefill_plan;
  // Disaggregated: the decode servers' running-request limit (serving.disaggregation.
  // decode_max_sequences: TensorRT-LLM's max_batch_size, per attention-DP rank where the decode
  // plan has them); 0 = max_sequences. And whether the frontend hands prefilled requests to the
  // decode servers in turn (Dynamo's default round-robin router, blind to free slots) instead of
  // to the least loaded. InferenceX rows: their recipe's (inferencex_disagg_limits.hpp).
  int decode_max_sequences = 0;
  bool decode_round_robin = false;
  // How the load was offered (docs/validation-sets.md): "" = closed loop at `concurrency`;
  // "offline" = every query at once, the saturated steady state (MLPerf Offline); "server" = Poisson
  // arrivals, predicted as the highest rate meeting the p99 limits below (MLPerf Server);
  // "prefill-only" / "decode-only" = one role's replica measured alone at a fixed batch (the wide-EP
  // set), predicted as that role's steady step: `role_batch_per_device` prompt tokens (prefill) or
  // sequences at isl tokens of context (decode) on every device, `two_batch_overlap` as stated.
  std::string scenario;
  long long role_batch_per_device = 0;
  bool two_batch_overlap = false;
  double ttft_p99_limit_s = 0, tpot_p99_limit_s = 0;  // "server": the benchmark's latency limits
  // The source states no plan: the smallest one whose weights and KV fit (dense: tp; MoE: dp = ep),
  // replicated over the row's GPUs (experiments/run/validation_runner.cpp, smallest_fitting_plan).
  bool plan_smallest_fit = false;
  std::string weights_dtype, experts_dtype, kv_dtype;  // fp4 | fp8 | bf16; "" = the catalog model's
  std::string mapping;   // how the row's text was mapped (model, system, plan, precision, engine)
  std::string group() const { return system + "/" + model; }
};

// Index of a metric name in kMeasuredMetrics; throws core::Error listing the names.
std::size_t measured_metric_index(std::string_view name);

// Reads the CSV; errors name file, line and column. Metrics may be empty; ids must be unique.
std::vector<MeasuredRun> read_measured_runs(std::istream& in, const std::string& file);
std::vector<MeasuredRun> load_measured_runs(const std::string& path);

// Throws a core::Error at FILE:1 naming the first header column not in `known`.
void check_known_columns(const std::vector<std::string>& header, std::span<const std::string_view> known,
                         const std::string& file);

}  // namespace agentsim::calib
