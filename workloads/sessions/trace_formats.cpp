#include "workloads/sessions/trace_formats.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/suggest.hpp"
#include "workloads/sessions/azure_csv.hpp"
#include "workloads/sessions/claude_code_csv.hpp"
#include "workloads/sessions/claude_code_json.hpp"
#include "workloads/sessions/mooncake_jsonl.hpp"
#include "workloads/sessions/trace_jsonl.hpp"

namespace agentsim::wl {
namespace fs = std::filesystem;

const std::vector<std::string>& trace_format_names() {
  static const std::vector<std::string> names = {"agentsim", "azure", "claude-code-csv", "claude-code-json",
                                                 "mooncake"};
  return names;
}

std::string detect_trace_format(const std::string& path) {
  if (fs::is_directory(path)) return "claude-code-json";
  std::ifstream in = core::open_input(path, "trace file");
  core::skip_utf8_bom(in);
  std::string first;
  std::getline(in, first);
  // The HDF5 form is read by the experiments layer (exp::load_trace_file); naming it
  // here keeps detection in one place and the error below precise.
  if (first.rfind("\x89HDF\r", 0) == 0) return "agentsim-h5";
  if (first.rfind("trace_id,agent_path", 0) == 0) return "claude-code-csv";
  if (first.rfind("trace_id,n_requests", 0) == 0) return "claude-code-summary";
  if (first.rfind("TIMESTAMP,ContextTokens", 0) == 0) return "azure";
  if (first.find("\"agentsim-trace\"") != std::string::npos) return "agentsim";
  if (first.find("\"hash_ids\"") != std::string::npos && first.find("\"input_length\"") != std::string::npos) {
    return "mooncake";
  }
  if (first.find("\"requests\"") != std::string::npos || first.find("\"block_size\"") != std::string::npos ||
      (first == "{" && path.size() > 5 && path.substr(path.size() - 5) == ".json")) {
    return "claude-code-json";
  }
  throw core::Error(core::SourceLocation{path, 1, ""},
                    "cannot tell the trace format from the first line; name it (workload.format in an experiment, "
                    "--format to `agentsim trace`): one of agentsim, azure, claude-code-csv, claude-code-json, "
                    "mooncake");
}

namespace {
Trace load_any(const std::string& format_in, const std::string& path, const ImportOptions& opt, ImportReport* report);
}  // namespace

Trace load_trace(const std::string& format_in, const std::string& path, const ImportOptions& opt,
                 ImportReport* report) {
  Trace t = load_any(format_in, path, opt, report);
  // Nothing to replay: a header-only or blank file is an input error, not an empty result.
  if (t.sessions.empty()) {
    throw core::Error(core::SourceLocation{path, 0, ""}, "no sessions in the trace: expected at least one request");
  }
  return t;
}

namespace {
Trace load_any(const std::string& format_in, const std::string& path, const ImportOptions& opt, ImportReport* report) {
  const std::string format = format_in.empty() ? detect_trace_format(path) : format_in;
  if (format == "claude-code-csv") return load_claude_code_csv_trace(path, opt, report);
  if (format == "mooncake") return load_mooncake_jsonl(path, opt, report);
  if (format == "azure") return load_azure_csv(path, opt, report);
  if (format == "agentsim") return load_trace_jsonl(path, opt, report);
  if (format == "claude-code-summary") {
    throw core::Error(core::SourceLocation{path, 1, ""},
                      "a per-conversation summary holds no requests to replay or import; use requests.csv "
                      "(`agentsim trace stats` prints this file's totals)");
  }
  if (format == "agentsim-h5") {
    throw core::Error(core::SourceLocation{path, 0, ""},
                      "HDF5 traces (agentsim-h5) are read through the experiments layer, not wl::load_trace");
  }
  if (format == "claude-code-json") {
    std::vector<std::string> files;
    if (fs::is_directory(path)) {
      for (const auto& e : fs::directory_iterator(path)) {
        if (e.path().extension() == ".json") files.push_back(e.path().string());
      }
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(path);
    }
    Trace t = load_claude_code_json(files);
    if (report) *report = ImportReport{static_cast<long long>(files.size()), 0, ""};
    return t;
  }
  const std::string near = core::closest_match(format, trace_format_names());
  throw core::Error("unknown trace format '" + format + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                    "; valid: " + core::join_names(trace_format_names()));
}
}  // namespace

}  // namespace agentsim::wl
