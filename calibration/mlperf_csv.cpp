// Adapter: experiments/validation/measured/mlperf-inference-v5.1/ (PROVENANCE.md there):
// llm_datacenter_results.csv, one row per submitted result (the Offline and Server scenarios), and
// llm_log_summaries.csv, each run's parsed mlperf_log_summary.txt (joined on the result's
// Location: its Server latency limits), and harness_configs.csv, the TensorRT-LLM harness settings
// of the results whose submitter's config file is in the results repository (joined on Location),
// and answer_lengths.csv, the answers of the DeepSeek-R1 results' TEST06 accuracy logs (pooled per
// benchmark: the spread of its answer lengths).
//
// A result states no parallelism, request lengths or engine limits; how each is taken is in
// docs/validation-sets.md and below, each marked measured (from the files), cited or assumed.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "calibration/measured_row.hpp"
#include "calibration/trtllm_defaults.hpp"
#include "sim/metrics/percentile.hpp"

namespace agentsim::calib {
using namespace detail;

namespace {

// One benchmark of the suite as a catalog model with its request lengths.
struct MlperfBenchmark {
  std::string_view name;     // the results' Model column
  std::string_view model;    // catalog name; "" = no catalog entry
  long long isl_tokens;      // mean prompt tokens of the benchmark's dataset
  long long osl_tokens;      // mean output tokens when the row's accuracy run states none
};

// Prompt lengths: the MLPerf reference implementation (github.com/mlcommons/inference, language/*)
// states only their limits (llama2-70b: < 1,024 tokens, processorca.py --seqlen_limit=1024;
// deepseek-r1: MAX_ISL 3,136, utils/backend_registry.py), not their means; the means below are
// assumed (docs/validation-sets.md, "Request lengths"). Output lengths are measured: each row's
// accuracy run (TOKENS_PER_SAMPLE) or, where it states none, the Server logs' tokens/s over
// samples/s (llama3.1-8b: 129.0 in every log).
constexpr MlperfBenchmark kBenchmarks[] = {
    // Llama 2 70B runs as the catalog's Llama 3.1 70B: the same 80 layers, hidden 8192, 64 query
    // and 8 KV heads of 128, SwiGLU FFN 28672 (HF meta-llama/Llama-2-70b-hf config.json); only the
    // vocabulary differs (32,000 against 128,256: 0.79 B more LM-head and embedding weights, 1.1%).
    // OpenOrca GPT-4 prompts (< 1,024 tokens): mean assumed 300 tokens, about the mean answer
    // (294.45 tokens per sample, the reference's accuracy target, language/llama2-70b/README.md).
    {"llama2-70b-99", "llama-3.1-70b", 300, 294},
    {"llama2-70b-99.9", "llama-3.1-70b", 300, 294},
    // CNN/DailyMail articles, 781 words on average (See et al. 2017, arXiv 1704.04368, section 4) x
    // ~1.3 Llama 3 tokens per word: 1,000 tokens assumed; outputs 129 tokens (Server logs, measured).
    {"llama3.1-8b", "llama-3.1-8b", 1000, 129},
    // AIME, MATH500, GPQA, MMLU-Pro (5-shot) and LiveCodeBench prompts (<= 3,136 tokens): mean
    // assumed 800 tokens; outputs from each row's TOKENS_PER_SAMPLE (~3,700), drawn with the spread
    // of the 1,700 answers in answer_lengths.csv (median 1,825, p90 9,080, longest 20,001).
    {"deepseek-r1", "deepseek-r1", 800, 3700},
    {"llama3.1-405b", "", 0, 0},
    {"llama3_1-405b", "", 0, 0},
    {"mixtral-8x7b", "", 0, 0},
};

// The results' Accelerator column as a catalog system (the SXM and OAM boards of the catalog's
// 8-GPU systems and racks), or a reason.
Mapped mlperf_system(const std::string& accelerator) {
  static const std::pair<std::string_view, std::string_view> kTable[] = {
      {"NVIDIA H100-SXM-80GB", "hgx-h100"},
      {"NVIDIA H200-SXM-141GB", "hgx-h200"},
      {"Virtualized NVIDIA H200-SXM-141GB", "hgx-h200"},
      {"NVIDIA B200-SXM-180GB", "hgx-b200"},
      {"NVIDIA GB200", "gb200-nvl72"},
      {"AMD Instinct MI300X 192GB HBM3", "mi300x-8"},
      {"AMD Instinct MI325X 256GB HBM3e", "mi325x-8"},
      {"AMD Instinct MI355X 288GB HBM3e", "mi355x-8"},
  };
  for (const auto& [name, system] : kTable) {
    if (accelerator == name) return Mapped{std::string(system), ""};
  }
  if (accelerator.empty()) return Mapped{"", "accelerator not stated"};
  if (accelerator.find(", ") != std::string::npos) {
    return Mapped{"", "accelerator '" + accelerator + "': a cluster of two accelerator kinds"};
  }
  return Mapped{"", "accelerator '" + accelerator + "' has no catalog system"};
}

// The Software column's engine. NVIDIA's LLM submissions name "TensorRT x, CUDA y": their harness
// serves the LLM benchmarks with TensorRT-LLM (closed/NVIDIA/code/harness in the results
// repository), so TensorRT is TensorRT-LLM here.
Mapped mlperf_engine(const std::string& software) {
  Mapped m = map_engine(software);
  if (m.ok()) return m;
  if (software.rfind("TensorRT", 0) == 0) return Mapped{"trtllm", ""};
  return Mapped{"", "software '" + software + "' names no serving engine with a host-overhead model (" + std::string(kHostModelEngines) + ")"};
}

// AMD's MLPerf harness (its two vLLM builds in v5.1's Software column, "vLLM 0.9.0.2.dev108+..." and
// "vLLM 0.6.5.dev964+mlperf50"; MangoBoost's LLMBoost platform wraps the first in its own serving) serves llama2-70b with one vLLM engine per GPU at its configs'
// limits (closed/AMD/code/llama2-70b-99/harness_llm/models/llama2-70b/*.yaml in the v5.1 results:
// max_num_seqs 1,792 on MI300X and 2,700 on MI325X, max_num_batched_tokens 40,960 and 65,536,
// gpu_memory_utilization 0.98) and its own scheduler (VLLM_LLAMA2_MLPERF_SCHED), which schedules a
// prefill only above a floor of free KV blocks (VLLM_LLAMA2_MLPERF_MIN_REQUIRE_PREFILL_GPU_BLOCK) so
// that admitted sequences are not preempted: modelled as reserve admission (assumed).
void amd_harness_limits(MeasuredRun& r, const std::string& software) {
  const bool harness = software.rfind("vLLM 0.9.0.2.dev108+", 0) == 0 || software.rfind("vLLM 0.6.5.dev964+mlperf50", 0) == 0;
  if (!harness || r.model != "llama-3.1-70b") return;
  if (r.system == "mi300x-8") {
    r.max_sequences = 1792;
    r.max_batch_tokens = 40960;
  } else if (r.system == "mi325x-8") {
    r.max_sequences = 2700;
    r.max_batch_tokens = 65536;
  } else {
    return;
  }
  r.memory_fraction = 0.98;
  r.admission = "reserve";
}

// TOKENS_PER_SAMPLE of the Accuracy column, or 0.
double tokens_per_sample(const std::string& accuracy) {
  const std::string key = "TOKENS_PER_SAMPLE:";
  const auto at = accuracy.find(key);
  if (at == std::string::npos) return 0;
  char* end = nullptr;
  const double v = std::strtod(accuracy.c_str() + at + key.size(), &end);
  return std::isfinite(v) && v > 0 ? v : 0;
}

struct LogSummary {
  double ttft_limit_s = 0, tpot_limit_s = 0;
};

// llm_log_summaries.csv by the result's Location (its path up to /performance/).
std::map<std::string, LogSummary> read_logs(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  std::map<std::string, LogSummary> out;
  const auto c_path = csv.column("path"), c_ttft = csv.column("ttft_limit_ns"), c_tpot = csv.column("tpot_limit_ns");
  while (csv.next()) {
    std::string path = csv.field(c_path);
    if (const auto at = path.find("/performance/"); at != std::string::npos) path.resize(at);
    out[path] = LogSummary{csv.number_or(c_ttft, 0) * 1e-9, csv.number_or(c_tpot, 0) * 1e-9};
  }
  return out;
}

// A TensorRT-LLM result's harness settings (harness_configs.csv: its submitter's config file in the
// results repository): parallelism, the engine's batch limits and its KV budget.
struct HarnessConfig {
  int tp = 1, pp = 1, ep = 1;
  bool attention_dp = false;  // enable_attention_dp: tp ranks each run their own attention and scheduler
  int max_sequences = 0;      // gpu_batch_size: TensorRT-LLM's max_batch_size (per attention-DP rank)
  int max_batch_tokens = 0;   // max_num_tokens
  double kv_free_memory_fraction = 0;  // kvcache_free_gpu_mem_frac
  int balance_timeout_steps = 0;       // adp_balancing_timeout_iters (with adp_balancing_enable)
};

// harness_configs.csv by the result's Location.
std::map<std::string, HarnessConfig> read_harness(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  std::map<std::string, HarnessConfig> out;
  const auto col = [&](std::string_view n) { return csv.column(n); };
  // An empty field is `fallback`; a stated one must be a positive integer.
  const auto positive = [&](std::string_view n, int fallback) {
    if (csv.field(col(n)).empty()) return fallback;
    const double v = csv.number(col(n));
    if (!(v >= 1 && v <= 1 << 20) || v != std::floor(v)) throw csv.error_at(col(n), "expected a positive integer");
    return static_cast<int>(v);
  };
  while (csv.next()) {
    HarnessConfig h;
    h.tp = positive("tensor_parallelism", 1);
    h.pp = positive("pipeline_parallelism", 1);
    h.ep = positive("moe_expert_parallelism", 1);
    const std::string& dp = csv.field(col("enable_attention_dp"));
    if (dp != "true" && dp != "false") throw csv.error_at(col("enable_attention_dp"), "expected true or false");
    h.attention_dp = dp == "true";
    h.max_sequences = positive("gpu_batch_size", 0);
    h.max_batch_tokens = positive("max_num_tokens", 0);
    h.kv_free_memory_fraction = csv.number_or(col("kvcache_free_gpu_mem_frac"), 0);
    if (!(h.kv_free_memory_fraction >= 0 && h.kv_free_memory_fraction <= 1)) {
      throw csv.error_at(col("kvcache_free_gpu_mem_frac"), "expected a fraction in [0, 1]");
    }
    h.balance_timeout_steps = positive("adp_balancing_timeout_iters", 0);
    if (!out.emplace(csv.field(col("location")), h).second) {
      throw csv.error_at(col("location"), "a second config for this result");
    }
  }
  return out;
}

// A benchmark's answers in the results' accuracy logs (answer_lengths.csv): the median, 90th
// percentile and longest of their token counts.
struct AnswerLengths {
  double median = 0, p90 = 0;
  long long max = 0;
};

// answer_lengths.csv by benchmark (its location's folder after the system's: <division>/<submitter>/
// compliance/<system>/<benchmark>/<scenario>).
std::map<std::string, AnswerLengths> read_answers(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  std::map<std::string, std::vector<double>> tokens;
  const std::size_t c_loc = csv.column("location"), c_tok = csv.column("output_tokens");
  csv.column("qsl_idx");  // required (the answer's prompt), not read: the spread pools every prompt
  while (csv.next()) {
    const std::string& loc = csv.field(c_loc);
    std::vector<std::string> parts;
    for (std::size_t a = 0, b; a <= loc.size(); a = b + 1) {
      b = std::min(loc.find('/', a), loc.size());
      parts.push_back(loc.substr(a, b - a));
    }
    if (parts.size() != 6 || parts[2] != "compliance") {
      throw csv.error_at(c_loc, "expected <division>/<submitter>/compliance/<system>/<benchmark>/<scenario>");
    }
    const double t = csv.number(c_tok);
    if (!(t >= 1 && t <= 1e7) || t != std::floor(t)) throw csv.error_at(c_tok, "expected a positive whole number of tokens");
    tokens[parts[4]].push_back(t);
  }
  std::map<std::string, AnswerLengths> out;
  for (auto& [bench, v] : tokens) {
    const long long longest = static_cast<long long>(*std::max_element(v.begin(), v.end()));
    const double median = metrics::percentile(v, 50), p90 = metrics::percentile(v, 90);
    out[bench] = AnswerLengths{median, p90, longest};
  }
  return out;
}

// The result runs its harness's settings: its plan (attention DP over the tensor-parallel ranks
// with the experts over `ep` of them, as TensorRT-LLM lays enable_attention_dp out; else tp and
// pp), its batch limits and KV budget, and its attention-DP balance timeout.
void apply_harness(MeasuredRun& r, const HarnessConfig& h) {
  r.trtllm_bench = false;
  r.plan_smallest_fit = false;
  const std::string ep = std::to_string(h.ep), pp = std::to_string(h.pp), tp = std::to_string(h.tp);
  r.plan = canonical_plan(h.attention_dp ? "dp=" + tp + ",ep=" + ep + ",pp=" + pp : "tp=" + tp + ",ep=" + ep + ",pp=" + pp);
  r.max_sequences = h.max_sequences;
  r.max_batch_tokens = h.max_batch_tokens;
  r.kv_free_memory_fraction = h.kv_free_memory_fraction;
  if (h.attention_dp) r.balance_timeout_steps = h.balance_timeout_steps;
}

}  // namespace

MeasuredFile read_mlperf_results(std::istream& in, const std::string& file, const MlperfSideFiles& side) {
  core::CsvReader csv(in, file);
  static constexpr std::string_view kColumns[] = {
      "ID", "Submitter", "Category", "Suite", "System", "Platform", "Model", "Scenario", "Nodes", "a#",
      "Accelerator", "Processor", "Software", "weight_data_types", "Performance_Result", "Performance_Units",
      "Power_Result", "Power_Units", "Accuracy", "Location", "total_accelerators", "tokens_per_s_per_accelerator"};
  check_known_columns(csv.header(), kColumns, file);
  const std::map<std::string, LogSummary> summaries =
      side.logs ? read_logs(*side.logs, side.logs_file) : std::map<std::string, LogSummary>{};
  const std::map<std::string, HarnessConfig> harness =
      side.configs ? read_harness(*side.configs, side.configs_file) : std::map<std::string, HarnessConfig>{};
  const std::map<std::string, AnswerLengths> answers =
      side.answers ? read_answers(*side.answers, side.answers_file) : std::map<std::string, AnswerLengths>{};
  const auto col = [&](std::string_view n) { return csv.column(n); };
  MeasuredFile out{file, "mlperf-inference", 0, {}, {}};
  // (ID, scenario, result) of the llama2-70b-99 rows: a 99.9 row of the same submission reporting the
  // same result is the same run submitted under both accuracy targets.
  std::map<std::string, std::string> llama99;
  while (csv.next()) {
    ++out.rows;
    const std::string& bench = csv.field(col("Model"));
    const std::string& scenario = csv.field(col("Scenario"));
    MeasuredRun r = new_row(csv, csv.field(col("ID")) + ":" + bench + ":" + scenario);
    r.source = "MLPerf Inference v5.1 " + csv.field(col("ID")) + " (" + csv.field(col("Submitter")) + ")";
    r.source_key = r.id;
    std::string why;
    const MlperfBenchmark* b = nullptr;
    for (const auto& x : kBenchmarks) {
      if (x.name == bench) b = &x;
    }
    if (b == nullptr || b->model.empty()) {
      why = "benchmark '" + bench + "' has no catalog model";
    } else {
      r.model = std::string(b->model);
    }
    if (why.empty() && csv.field(col("Category")) != "closed") {
      why = "open division: the rules let it change the model or its accuracy";
    }
    if (scenario == "Offline") {
      r.scenario = "offline";
    } else if (scenario == "Server") {
      r.scenario = "server";
    } else if (why.empty()) {
      why = "scenario '" + scenario + "' is neither Offline nor Server";
    }
    r.system = take(mlperf_system(csv.field(col("Accelerator"))), why);
    r.engine = take(mlperf_engine(csv.field(col("Software"))), why);
    // weight_data_types: fp8 / fp4 (NVIDIA's NVFP4 checkpoints) / mxfp4; quantised submissions keep
    // an FP8 KV cache (assumed: NVIDIA's and AMD's LLM submissions quantise KV with the weights).
    const std::string& dtype = csv.field(col("weight_data_types"));
    if (dtype == "fp8") {
      r.weights_dtype = r.experts_dtype = r.kv_dtype = "fp8";
    } else if (dtype == "fp4") {
      r.experts_dtype = r.system.rfind("mi", 0) == 0 ? "mxfp4" : "nvfp4";
      r.kv_dtype = "fp8";
    } else if (dtype == "mxfp4") {
      r.experts_dtype = "mxfp4";
      r.kv_dtype = "fp8";
    } else if (dtype != "UNSET" && dtype != "" && why.empty()) {
      why = "weight data type '" + dtype + "' is not modelled (fp8, fp4, mxfp4)";
    }
    // NVIDIA's harness builds its TensorRT-LLM engines for maximum throughput; where the submitter's
    // config is not in the results repository (harness_configs.csv lists those that are, applied
    // below), trtllm-bench's heuristic for the plan stands in (assumed;
    // experiments/run/trtllm_bench_limits.hpp) where it applies (grouped-query attention); DeepSeek-R1
    // runs TensorRT-LLM's default limits. The other engines run the base experiment's limits.
    r.trtllm_bench = r.engine == "trtllm" && bench.rfind("deepseek", 0) != 0;
    if (r.engine == "trtllm" && !r.trtllm_bench) {
      r.max_sequences = kTrtllmDefaultMaxBatchSize;
      r.max_batch_tokens = kTrtllmDefaultMaxNumTokens;
    }
    amd_harness_limits(r, csv.field(col("Software")));
    r.gpus = static_cast<int>(required_count(csv, col("total_accelerators"), why));
    r.plan_smallest_fit = true;
    r.plan = "smallest fit";
    if (b != nullptr) {
      r.isl = b->isl_tokens;
      const double tps = tokens_per_sample(csv.field(col("Accuracy")));
      r.osl = tps > 0 ? std::llround(tps) : b->osl_tokens;
      // A benchmark whose answers' lengths were measured draws them (a reasoning model's long tail
      // decides its batch's context and KV), keeping the row's mean as its reported length.
      if (const auto it = answers.find(bench); it != answers.end()) {
        r.osl_median = it->second.median;
        r.osl_p90 = it->second.p90;
        r.osl_max = it->second.max;
      }
    }
    // Offline: all queries at once, closed loop at the engine's running cap (set with the plan).
    r.concurrency = 1;
    const std::string& location = csv.field(col("Location"));
    // Where the submitter's harness config is in the results repository, its settings replace the
    // stand-ins above (harness_configs.csv; its PROVENANCE.md).
    if (const auto it = harness.find(location); it != harness.end() && r.engine == "trtllm") {
      apply_harness(r, it->second);
    }
    if (r.scenario == "server") {
      const auto it = summaries.find(location);
      if (it == summaries.end() || !(it->second.ttft_limit_s > 0 && it->second.tpot_limit_s > 0)) {
        if (why.empty()) why = "no log summary with the Server latency limits for '" + location + "'";
      } else {
        r.ttft_p99_limit_s = it->second.ttft_limit_s;
        r.tpot_p99_limit_s = it->second.tpot_limit_s;
      }
    }
    const std::string& units = csv.field(col("Performance_Units"));
    if (units != "Tokens/s" && why.empty()) why = "performance in '" + units + "', not Tokens/s";
    const double gpus = std::max(1, r.gpus);
    r.metrics[metric("output_tok_s_per_gpu")] = optional_positive(csv, col("Performance_Result"), 1.0 / gpus, why);
    if (csv.field(col("Power_Units")) == "Watts") {
      r.metrics[metric("wall_power_w_per_gpu")] = optional_positive(csv, col("Power_Result"), 1.0 / gpus, why);
    }
    if (why.empty() && b != nullptr && bench.starts_with("llama2-70b")) {
      const std::string key = csv.field(col("ID")) + "|" + scenario + "|" + csv.field(col("Performance_Result"));
      if (bench == "llama2-70b-99") {
        llama99.emplace(key, r.id);
      } else if (const auto it = llama99.find(key); it != llama99.end()) {
        why = "the same run as '" + it->second + "' (submitted under both accuracy targets)";
      }
    }
    r.mapping = bench + " | " + scenario + " | " + csv.field(col("Nodes")) + "x" + csv.field(col("a#")) + " " +
                csv.field(col("Accelerator")) + " | " + dtype + " | " + csv.field(col("Software"));
    file_row(out, std::move(r), std::move(why));
  }
  return out;
}

}  // namespace agentsim::calib
