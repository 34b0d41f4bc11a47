#pragma once
// Measured serving runs from every schema shipped under experiments/validation/:
// agentsim's measured-runs schema (measured_runs.hpp), the transcribed serving points
// (serving-points/, serving-points-2/) and TensorRT-LLM's perf-overview table. One
// adapter per schema maps a row's text (model, hardware, precision, plan, speculation,
// engine) to a MeasuredRun with catalog names (measured_names.hpp); a row that cannot
// be mapped is kept as a SkippedRow with its reason, never dropped silently. An unknown
// column is an error at FILE:1 naming it.
#include <istream>
#include <string>
#include <vector>

#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

struct SkippedRow {
  std::string file;
  int line = 0;
  std::string id;
  std::string reason;
};

// One adapter's result for one file.
struct MeasuredFile {
  std::string file;
  std::string schema;  // "measured-runs", "serving-points", "serving-points-2", "trtllm-perf-overview",
                       // "mlperf-inference", "mlperf-log-summaries" (read with the results: no rows)
  int rows = 0;        // data rows read
  std::vector<MeasuredRun> runs;
  std::vector<SkippedRow> skipped;
};

struct MeasuredSet {
  std::vector<MeasuredFile> files;  // in path order
  std::vector<MeasuredRun> runs;    // every file's mapped rows, de-duplicated, in file then line order
  std::vector<SkippedRow> skipped;  // every file's skipped rows, then the duplicates
  int rows() const;
};

// The adapters (one per schema), each reading a whole CSV.
MeasuredFile read_serving_points(std::istream& in, const std::string& file);     // serving-points/
MeasuredFile read_serving_points_2(std::istream& in, const std::string& file);   // serving-points-2/
MeasuredFile read_trtllm_perf_overview(std::istream& in, const std::string& file);
MeasuredFile read_measured_runs_file(std::istream& in, const std::string& file);  // measured-runs schema
// The files an MLPerf results extract reads beside it, each with its name for errors (null = absent).
struct MlperfSideFiles {
  std::istream* logs = nullptr;     // llm_log_summaries.csv: the Server runs' latency limits
  std::string logs_file;
  std::istream* configs = nullptr;  // harness_configs.csv: TensorRT-LLM results' plan, batch limits, KV budget
  std::string configs_file;
  std::istream* answers = nullptr;  // answer_lengths.csv: a benchmark's measured answer lengths
  std::string answers_file;
};

// MLPerf Inference results (mlperf-inference-v5.1/llm_datacenter_results.csv) with the files beside it.
MeasuredFile read_mlperf_results(std::istream& in, const std::string& file, const MlperfSideFiles& side = {});

// Reads one CSV (its schema told by its header) or every *.csv below a directory (path
// order). Rows reporting the same point as an earlier row (same source id, system, model,
// plan, isl, osl, concurrency, speculation) are skipped as duplicates naming the first.
MeasuredSet load_measured(const std::string& path);

}  // namespace agentsim::calib
