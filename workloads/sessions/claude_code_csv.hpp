#pragma once
// Importer of the Claude Code (WEKA kv-cache-tester) prefix-tree CSV
// (`requests.csv`, one row per request). Each (trace_id, agent_path) becomes
// one session, its turns ordered by req_idx; the gap after turn k is the
// recorded think_time_s of request k+1. The lcp columns become prefix links
// with fresh block ids per trace (ids are per-trace in the upstream data).
#include <istream>
#include <string>
#include <vector>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

// Reads a trace from `in`; `file` names it in errors (file:line: column: what).
Trace read_claude_code_csv_trace(std::istream& in, const std::string& file, const ImportOptions& opt = {},
                                 ImportReport* report = nullptr);
// Opens and reads `path`; a missing file is an error naming it.
Trace load_claude_code_csv_trace(const std::string& path, const ImportOptions& opt = {},
                                 ImportReport* report = nullptr);

// The sessions alone (for callers that need no prefix data).
std::vector<Session> read_claude_code_csv(std::istream& in, const std::string& file);
std::vector<Session> load_claude_code_csv(const std::string& path);

}  // namespace agentsim::wl
