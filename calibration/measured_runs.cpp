#include "calibration/measured_runs.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <set>

#include "calibration/kernel_implementation.hpp"
#include "calibration/run_date.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::calib {

std::size_t measured_metric_index(std::string_view name) {
  for (std::size_t i = 0; i < kMeasuredMetricCount; ++i) {
    if (kMeasuredMetrics[i] == name) return i;
  }
  std::vector<std::string> names(std::begin(kMeasuredMetrics), std::end(kMeasuredMetrics));
  throw core::Error("unknown metric '" + std::string(name) + "'; valid: " + core::join_names(names));
}

void check_known_columns(const std::vector<std::string>& header, std::span<const std::string_view> known,
                         const std::string& file) {
  std::vector<std::string> names(known.begin(), known.end());
  for (const std::string& h : header) {
    if (std::find(known.begin(), known.end(), h) == known.end()) {
      throw core::Error(core::SourceLocation{file, 1, h}, "unknown column; valid: " + core::join_names(names));
    }
  }
}

std::vector<MeasuredRun> read_measured_runs(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  {
    std::vector<std::string_view> known = {"id", "source", "system", "model", "plan", "gpus", "isl", "osl",
                                           "concurrency", "notes", "engine", "stream_interval_tokens",
                                           "scheduler_recv_interval", "range_ratio", "prompts", "max_batch_tokens",
                                           "max_sequences", "memory_fraction", "admission", "prefill_replicas",
                                           "decode_replicas", "decode_max_sequences", "decode_router", "run_date",
                                           "kernels"};
    for (auto m : kMeasuredMetrics) known.push_back(m);
    check_known_columns(csv.header(), known, file);
  }
  const bool has_engine = csv.has_column("engine");
  const bool has_interval = csv.has_column("stream_interval_tokens");
  const bool has_recv = csv.has_column("scheduler_recv_interval");
  const bool has_range = csv.has_column("range_ratio");
  const bool has_prompts = csv.has_column("prompts");
  // An optional column's index when the column is present and this row's field is not empty.
  auto filled = [&](const char* column) -> std::optional<std::size_t> {
    if (!csv.has_column(column) || csv.field(csv.column(column)).empty()) return std::nullopt;
    return csv.column(column);
  };
  const auto c_id = csv.column("id"), c_source = csv.column("source"), c_system = csv.column("system"),
             c_model = csv.column("model"), c_plan = csv.column("plan"), c_gpus = csv.column("gpus"),
             c_isl = csv.column("isl"), c_osl = csv.column("osl"), c_conc = csv.column("concurrency");
  // Every metric column is required but the later-added median TTFT and wall power (absent: not reported).
  constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
  std::size_t c_metric[kMeasuredMetricCount];
  for (std::size_t i = 0; i < kMeasuredMetricCount; ++i) {
    const bool optional = kMeasuredMetrics[i] == "ttft_s_median" || kMeasuredMetrics[i] == "wall_power_w_per_gpu";
    c_metric[i] = optional && !csv.has_column(kMeasuredMetrics[i]) ? kAbsent : csv.column(kMeasuredMetrics[i]);
  }

  std::vector<MeasuredRun> runs;
  std::set<std::string> ids;
  while (csv.next()) {
    MeasuredRun r;
    r.line = csv.line();
    r.id = csv.field(c_id);
    if (r.id.empty()) throw csv.error_at(c_id, "expected a row id");
    if (!ids.insert(r.id).second) throw csv.error_at(c_id, "duplicate id '" + r.id + "'");
    r.source = csv.field(c_source);
    r.system = csv.field(c_system);
    r.model = csv.field(c_model);
    r.plan = csv.field(c_plan);
    r.file = file;
    r.source_key = r.source;
    if (has_engine) r.engine = csv.field(csv.column("engine"));
    if (has_interval && !csv.field(csv.column("stream_interval_tokens")).empty()) {
      const std::size_t c = csv.column("stream_interval_tokens");
      const long long n = csv.integer(c);
      if (n < 1 || n > 1'000'000) throw csv.error_at(c, "expected a stream interval in [1, 1000000] output tokens");
      r.stream_interval_tokens = static_cast<int>(n);
    }
    if (has_recv && !csv.field(csv.column("scheduler_recv_interval")).empty()) {
      const std::size_t c = csv.column("scheduler_recv_interval");
      const long long n = csv.integer(c);
      if (n < 1 || n > 1'000'000) throw csv.error_at(c, "expected a receive interval in [1, 1000000] decode steps");
      r.recv_interval_steps = static_cast<int>(n);
    }
    if (has_range && !csv.field(csv.column("range_ratio")).empty()) {
      const std::size_t c = csv.column("range_ratio");
      r.range_ratio = csv.number(c);
      if (!(r.range_ratio > 0 && r.range_ratio <= 1)) throw csv.error_at(c, "expected a range ratio in (0, 1]");
    }
    if (has_prompts && !csv.field(csv.column("prompts")).empty()) {
      const std::size_t c = csv.column("prompts");
      r.prompts = csv.integer(c);
      if (r.prompts < 1 || r.prompts > 1'000'000'000) throw csv.error_at(c, "expected a prompt count in [1, 1000000000]");
    }
    if (const auto c = filled("max_batch_tokens")) {
      const long long n = csv.integer(*c);
      if (n < 1 || n > 100'000'000) throw csv.error_at(*c, "expected a token budget in [1, 100000000] tokens a step");
      r.max_batch_tokens = static_cast<int>(n);
    }
    if (const auto c = filled("max_sequences")) {
      const long long n = csv.integer(*c);
      if (n < 1 || n > 10'000'000) throw csv.error_at(*c, "expected a running-request cap in [1, 10000000]");
      r.max_sequences = static_cast<int>(n);
    }
    if (const auto c = filled("admission")) {
      r.admission = csv.field(*c);
      if (r.admission != "reserve" && r.admission != "on_demand") throw csv.error_at(*c, "expected reserve or on_demand");
    }
    if (const auto c = filled("run_date")) {
      r.run_date = csv.field(*c);
      if (!is_run_date(r.run_date)) throw csv.error_at(*c, "expected the date the run was measured, YYYY-MM-DD");
    }
    if (const auto c = filled("kernels")) {
      // "grouped_gemm_fp8=deepgemm; gemm_fp8=cublas": the kernels the server ran where not its engine's.
      std::string_view rest = csv.field(*c);
      while (!rest.empty()) {
        const std::size_t semi = rest.find(';');
        if (const std::string why = read_kernel_choice(rest.substr(0, semi), r.kernels); !why.empty()) {
          throw csv.error_at(*c, why + " (pairs separated by ';')");
        }
        rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
      }
    }
    if (const auto c = filled("memory_fraction")) {
      r.memory_fraction = csv.number(*c);
      if (!(r.memory_fraction > 0 && r.memory_fraction <= 1)) throw csv.error_at(*c, "expected a memory fraction in (0, 1]");
    }
    {
      const auto p = filled("prefill_replicas"), d = filled("decode_replicas");
      if (p.has_value() != d.has_value()) {
        const std::size_t c = p ? *p : *d;
        throw csv.error_at(c, "a disaggregated run states both prefill_replicas and decode_replicas");
      }
      if (p) {
        const long long np = csv.integer(*p), nd = csv.integer(*d);
        if (np < 1 || np > 1'000'000) throw csv.error_at(*p, "expected a replica count in [1, 1000000]");
        if (nd < 1 || nd > 1'000'000) throw csv.error_at(*d, "expected a replica count in [1, 1000000]");
        r.prefill_replicas = static_cast<int>(np);
        r.decode_replicas = static_cast<int>(nd);
      }
      // The decode servers' batch limit and the frontend's router (serving.disaggregation's keys).
      for (const char* column : {"decode_max_sequences", "decode_router"}) {
        if (const auto c = filled(column); c && !p) {
          throw csv.error_at(*c, std::string(column) + " needs a disaggregated run (prefill_replicas, decode_replicas)");
        }
      }
      if (const auto c = filled("decode_max_sequences")) {
        const long long n = csv.integer(*c);
        if (n < 1 || n > 10'000'000) throw csv.error_at(*c, "expected a running-request cap in [1, 10000000]");
        r.decode_max_sequences = static_cast<int>(n);
      }
      if (const auto c = filled("decode_router")) {
        const std::string_view v = csv.field(*c);
        if (v != "round_robin" && v != "least_loaded") throw csv.error_at(*c, "expected round_robin or least_loaded");
        r.decode_round_robin = v == "round_robin";
      }
    }
    if (r.system.empty()) throw csv.error_at(c_system, "expected a system name");
    if (r.model.empty()) throw csv.error_at(c_model, "expected a model name");
    const long long gpus = csv.integer(c_gpus);
    if (gpus < 1 || gpus > 1'000'000) throw csv.error_at(c_gpus, "expected a GPU count in [1, 1000000]");
    r.gpus = static_cast<int>(gpus);
    r.isl = csv.integer(c_isl);
    r.osl = csv.integer(c_osl);
    if (r.isl < 1 || r.isl > 1'000'000'000) throw csv.error_at(c_isl, "expected a token count in [1, 1000000000]");
    if (r.osl < 1 || r.osl > 1'000'000'000) throw csv.error_at(c_osl, "expected a token count in [1, 1000000000]");
    r.concurrency = csv.number(c_conc);
    // The same bound as an experiment's concurrency list: a typo must not start a huge run.
    if (!(r.concurrency >= 1 && r.concurrency <= 10'000'000)) {
      throw csv.error_at(c_conc, "expected a concurrency in [1, 10000000]");
    }
    bool any = false;
    for (std::size_t i = 0; i < kMeasuredMetricCount; ++i) {
      r.metrics[i] = c_metric[i] == kAbsent ? std::numeric_limits<double>::quiet_NaN()
                                            : csv.number_or(c_metric[i], std::numeric_limits<double>::quiet_NaN());
      if (!std::isnan(r.metrics[i])) {
        if (!(r.metrics[i] > 0)) throw csv.error_at(c_metric[i], "expected a positive value or an empty field");
        any = true;
      }
    }
    if (!any) throw csv.error_at(c_metric[0], "row reports no metric");
    runs.push_back(r);
  }
  return runs;
}

std::vector<MeasuredRun> load_measured_runs(const std::string& path) {
  std::ifstream in = core::open_input(path, "measured-runs file");
  return read_measured_runs(in, path);
}

}  // namespace agentsim::calib
