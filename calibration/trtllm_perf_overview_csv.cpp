// Adapter: experiments/validation/measured/trtllm-perf-overview/perf_overview_output_tps_per_gpu.csv.
// Max-throughput points of `trtllm-bench throughput` (TensorRT-LLM docs/source/developer-guide/
// perf-overview.md, PROVENANCE.md): a dataset of fixed-length requests all queued at once, its
// size by ISL/OSL (the doc's table: 3000 at 1024/1024, 1500 at 8192/1024 and 1024/8192, 1000 at
// 32768/1024 and 1024/32768; 1000/1000 taken as 1024/1024), `--kv_cache_free_gpu_mem_fraction
// 0.95`, the tool's own engine settings (experiments/run/trtllm_bench_limits.hpp), and each model's
// `llm_options.yml` as the doc lists it: attention DP for the MoE models (DEPn: --tp n --ep n), an
// FP8 KV cache for DeepSeek and GPT-OSS. A row runs as that finite run with every request sent at
// once (concurrency = requests). DeepSeek-R1's rows stay unmapped at preparation: the tool's
// settings for a latent-attention model depend on its release (trtllm_bench_limits.hpp).
#include "calibration/measured_row.hpp"

namespace agentsim::calib {
using namespace detail;

MeasuredFile read_trtllm_perf_overview(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  static constexpr std::string_view kColumns[] = {"model", "isl", "osl", "gpu", "parallelism", "precision",
                                                  "output_tokens_per_s_per_gpu"};
  check_known_columns(csv.header(), kColumns, file);
  const auto col = [&](std::string_view n) { return csv.column(n); };
  MeasuredFile out{file, "trtllm-perf-overview", 0, {}, {}};
  while (csv.next()) {
    ++out.rows;
    MeasuredRun r = new_row(csv, "TRTPO:" + std::to_string(csv.line()));
    r.source = r.source_key = "TRTLLM-PERF-OVERVIEW";
    r.engine = "trtllm";
    std::string why;
    r.model = take(map_model(csv.field(col("model"))), why);
    r.system = take(map_hardware(csv.field(col("gpu"))), why);
    r.plan = take(map_plan(csv.field(col("parallelism"))), why);
    const Precision p = map_precision(csv.field(col("precision")));
    if (!p.reason.empty() && why.empty()) why = p.reason;
    r.weights_dtype = p.weights, r.experts_dtype = p.experts;
    // The perf overview's "FP4 Models" are ModelOpt's NVFP4 checkpoints (nvidia/Llama-3.3-70B-Instruct-FP4,
    // nvidia/DeepSeek-R1-0528-NVFP4-v2, nvidia/Qwen3-235B-A22B-FP4; perf-overview.md at the PROVENANCE
    // commit). GPT-OSS is in neither of its model lists: its FP4 runs are taken as OpenAI's one release,
    // openai/gpt-oss-120b, whose experts are MXFP4 (assumed); its Hopper runs, labelled FP8, name no
    // checkpoint of that format.
    const bool gpt_oss = r.model == "gpt-oss-120b";
    if (r.experts_dtype == "fp4") r.experts_dtype = gpt_oss ? "mxfp4" : "nvfp4";
    if (gpt_oss && p.experts == "fp8" && why.empty()) {
      why = "GPT-OSS labelled FP8: the perf overview lists no FP8 GPT-OSS checkpoint, so the format that ran is not stated";
    }
    // PROVENANCE: DeepSeek and GPT-OSS ran with `kv_cache_config: dtype: fp8`; the dense models'
    // ModelOpt checkpoints (nvidia/Llama-3.3-70B-Instruct-FP8, -FP4) assumed to carry the FP8 KV
    // cache ModelOpt's hf_ptq.py quantises by default (--kv_cache_qformat fp8).
    r.kv_dtype = "fp8";
    r.isl = required_count(csv, col("isl"), why);
    r.osl = required_count(csv, col("osl"), why);
    r.metrics[metric("output_tok_s_per_gpu")] = optional_positive(csv, col("output_tokens_per_s_per_gpu"), 1, why);
    const auto requests = [](long long isl, long long osl) -> long long {
      if ((isl == 1024 && osl == 1024) || (isl == 1000 && osl == 1000)) return 3000;
      if ((isl == 8192 && osl == 1024) || (isl == 1024 && osl == 8192)) return 1500;
      if ((isl == 32768 && osl == 1024) || (isl == 1024 && osl == 32768)) return 1000;
      return 0;
    };
    r.prompts = requests(r.isl, r.osl);
    if (why.empty() && r.prompts == 0) why = "the perf overview states no request count for this ISL/OSL";
    r.concurrency = static_cast<double>(r.prompts);  // every request queued at once (max rate)
    r.range_ratio = 1.0;                              // --input-stdev=0 --output-stdev=0
    r.kv_free_memory_fraction = 0.95;                 // --kv_cache_free_gpu_mem_fraction 0.95
    r.trtllm_bench = true;
    file_row(out, std::move(r), std::move(why));
  }
  return out;
}

}  // namespace agentsim::calib
