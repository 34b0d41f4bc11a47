// Adapter: experiments/validation/measured/trtllm-perf-overview/perf_overview_output_tps_per_gpu.csv.
// Max-throughput points (trtllm-bench at max request rate): the source states no
// concurrency, so every row is skipped with that reason (a closed loop needs one).
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
    r.kv_dtype = "fp8";  // PROVENANCE: DeepSeek and GPT-OSS ran with FP8 KV cache
    r.isl = required_count(csv, col("isl"), why);
    r.osl = required_count(csv, col("osl"), why);
    r.metrics[metric("output_tok_s_per_gpu")] = optional_positive(csv, col("output_tokens_per_s_per_gpu"), 1, why);
    if (why.empty()) why = "no concurrency: offline max-throughput run (requests at max rate)";
    file_row(out, std::move(r), std::move(why));
  }
  return out;
}

}  // namespace agentsim::calib
