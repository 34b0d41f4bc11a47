// Adapter: experiments/validation/measured/serving-points/serving_points.csv (PROVENANCE.md there).
#include <set>

#include "calibration/inferencex_client.hpp"
#include "calibration/measured_row.hpp"

namespace agentsim::calib {
using namespace detail;

MeasuredFile read_serving_points(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  static constexpr std::string_view kColumns[] = {
      "source_id", "model", "hardware", "n_gpus", "framework", "precision", "parallelism", "isl", "osl",
      "concurrency", "total_tput_per_gpu", "output_tput_per_gpu", "mean_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
      "median_tpot_ms", "p99_tpot_ms", "mean_e2e_s", "notes"};
  check_known_columns(csv.header(), kColumns, file);
  const auto col = [&](std::string_view n) { return csv.column(n); };
  MeasuredFile out{file, "serving-points", 0, {}, {}};
  while (csv.next()) {
    ++out.rows;
    MeasuredRun r = new_row(csv, csv.field(col("source_id")) + ":" + std::to_string(csv.line()));
    r.source = r.source_key = csv.field(col("source_id"));
    std::string why;
    r.model = take(map_model(csv.field(col("model"))), why);
    r.system = take(map_hardware(csv.field(col("hardware"))), why);
    r.plan = take(map_plan(csv.field(col("parallelism"))), why);
    r.engine = take(map_engine(csv.field(col("framework"))), why);
    const Precision p = map_precision(csv.field(col("precision")));
    if (!p.reason.empty() && why.empty()) why = p.reason;
    r.weights_dtype = p.weights, r.experts_dtype = p.experts, r.kv_dtype = p.kv;
    r.gpus = static_cast<int>(required_count(csv, col("n_gpus"), why));
    r.isl = required_count(csv, col("isl"), why);
    r.osl = required_count(csv, col("osl"), why);
    r.concurrency = static_cast<double>(required_count(csv, col("concurrency"), why));
    // IX<n> source ids are InferenceX issues and PRs (PROVENANCE.md there): its recipe's and client's settings.
    if (r.source.starts_with("IX")) apply_inferencex_run(r);
    r.speculative = false;  // this set names no speculative method: none ran
    r.metrics[metric("output_tok_s_per_gpu")] = optional_positive(csv, col("output_tput_per_gpu"), 1, why);
    r.metrics[metric("total_tok_s_per_gpu")] = optional_positive(csv, col("total_tput_per_gpu"), 1, why);
    r.metrics[metric("ttft_s_mean")] = optional_positive(csv, col("mean_ttft_ms"), 1e-3, why);
    r.metrics[metric("tpot_s_mean")] = optional_positive(csv, col("mean_tpot_ms"), 1e-3, why);
    r.metrics[metric("tpot_s_median")] = optional_positive(csv, col("median_tpot_ms"), 1e-3, why);
    r.mapping = csv.field(col("model")) + " | " + csv.field(col("hardware")) + " | " + csv.field(col("parallelism")) +
                " | " + csv.field(col("precision")) + " | " + csv.field(col("framework"));
    file_row(out, std::move(r), std::move(why));
  }
  return out;
}

}  // namespace agentsim::calib
