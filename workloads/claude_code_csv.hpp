#pragma once
// Importer of the Claude Code (WEKA kv-cache-tester) prefix-tree CSV
// (`requests.csv`, one row per request). Each (trace_id, agent_path) becomes
// one session, its turns ordered by req_idx; the gap after turn k is the
// recorded think_time_s of request k+1.
#include <istream>
#include <string>
#include <vector>

#include "workloads/session.hpp"

namespace agentsim::wl {

// Reads sessions from `in`; `file` names it in errors (file, line, column).
std::vector<Session> read_claude_code_csv(std::istream& in, const std::string& file);
// Opens and reads `path`; a missing file is an error naming it.
std::vector<Session> load_claude_code_csv(const std::string& path);

}  // namespace agentsim::wl
