#include "calibration/measured_sources.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "calibration/measured_names.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace agentsim::calib {
namespace fs = std::filesystem;

int MeasuredSet::rows() const {
  int n = 0;
  for (const auto& f : files) n += f.rows;
  return n;
}

MeasuredFile read_measured_runs_file(std::istream& in, const std::string& file) {
  MeasuredFile out{file, "measured-runs", 0, read_measured_runs(in, file), {}};
  out.rows = static_cast<int>(out.runs.size());
  return out;
}

namespace {

// The schema from the header row: the first line's column names.
MeasuredFile read_any(const std::string& path) {
  std::ifstream in = core::open_input(path, "measured-runs file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> header;
  {
    std::istringstream head(text);
    core::CsvReader csv(head, path);
    header = csv.header();
  }
  const auto has = [&](std::string_view c) { return std::find(header.begin(), header.end(), c) != header.end(); };
  std::istringstream body(text);
  if (has("engine_version") && has("plan(tp/ep/dp)")) return read_serving_points_2(body, path);
  if (has("source_id") && has("hardware")) return read_serving_points(body, path);
  if (has("output_tokens_per_s_per_gpu") && has("parallelism")) return read_trtllm_perf_overview(body, path);
  if (has("id") && has("plan") && has("gpus")) return read_measured_runs_file(body, path);
  if (has("Performance_Result") && has("Location")) {
    // The Server runs' latency limits come from the log summaries beside the results, the
    // TensorRT-LLM results' harness settings from the harness configs beside them, a benchmark's
    // answer lengths from the accuracy logs' extract beside them.
    const fs::path dir = fs::path(path).parent_path();
    MlperfSideFiles side{nullptr, (dir / "llm_log_summaries.csv").string(), nullptr,
                         (dir / "harness_configs.csv").string(), nullptr, (dir / "answer_lengths.csv").string()};
    std::ifstream log_in, config_in, answer_in;
    const auto open = [](const std::string& f, std::ifstream& s, const char* what) -> std::istream* {
      std::error_code ec;
      if (!fs::is_regular_file(f, ec)) return nullptr;
      s = core::open_input(f, what);
      return &s;
    };
    side.logs = open(side.logs_file, log_in, "MLPerf log summaries");
    side.configs = open(side.configs_file, config_in, "MLPerf harness configs");
    side.answers = open(side.answers_file, answer_in, "MLPerf answer lengths");
    return read_mlperf_results(body, path, side);
  }
  if (has("ttft_limit_ns") && has("path")) return MeasuredFile{path, "mlperf-log-summaries", 0, {}, {}};
  if (has("location") && has("gpu_batch_size")) return MeasuredFile{path, "mlperf-harness-configs", 0, {}, {}};
  if (has("location") && has("qsl_idx") && has("output_tokens")) return MeasuredFile{path, "mlperf-answer-lengths", 0, {}, {}};
  throw core::Error(core::SourceLocation{path, 1, ""},
                    "unrecognised measured-runs header: expected the measured-runs schema (id, source, system, model, "
                    "plan, gpus, ...), serving-points (source_id, hardware, ...), serving-points-2 (id, engine_version, "
                    "plan(tp/ep/dp), ...), trtllm-perf-overview (model, gpu, parallelism, output_tokens_per_s_per_gpu) "
                    "or MLPerf Inference results (ID, Model, Scenario, ..., Performance_Result, Location)");
}

// The measurement's identity: its source entry, system, model, plan, GPUs, shape and load.
// (serving-points-2 keys by its unique row id: its PROVENANCE says it repeats no other set.)
std::string dedup_key(const MeasuredRun& r) {
  std::ostringstream k;
  k << r.source_key << '|' << r.system << '|' << r.model << '|' << canonical_plan(r.plan) << '|' << r.gpus << '|'
    << r.isl << '|' << r.osl << '|' << r.concurrency;
  return k.str();
}

}  // namespace

MeasuredSet load_measured(const std::string& path) {
  std::vector<std::string> paths;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::recursive_directory_iterator(path)) {
      if (e.is_regular_file() && e.path().extension() == ".csv") paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
    if (paths.empty()) throw core::Error(core::SourceLocation{path, 0, ""}, "no measured-runs CSV below this directory");
  } else {
    paths.push_back(path);
  }
  MeasuredSet set;
  std::map<std::string, std::string> first;  // dedup key -> file:line of its first row
  std::vector<SkippedRow> duplicates;
  for (const std::string& p : paths) {
    MeasuredFile f = read_any(p);
    for (const MeasuredRun& r : f.runs) {
      const std::string key = dedup_key(r);
      const std::string where = r.file + ":" + std::to_string(r.line);
      auto [it, fresh] = first.emplace(key, where);
      if (fresh) {
        set.runs.push_back(r);
      } else {
        duplicates.push_back(SkippedRow{r.file, r.line, r.id, "duplicate of " + it->second});
      }
    }
    set.skipped.insert(set.skipped.end(), f.skipped.begin(), f.skipped.end());
    set.files.push_back(std::move(f));
  }
  set.skipped.insert(set.skipped.end(), duplicates.begin(), duplicates.end());
  return set;
}

}  // namespace agentsim::calib
