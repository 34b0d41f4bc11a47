#pragma once
// Importer of raw Claude Code trace files (kv-cache-tester `trace_XXXX.json`):
// the root request list is one session, every "subagent" marker a child
// session spawned after the parent's preceding turn (nested to any depth).
// Block ids are per file; sub-agents share their parent's id space.
#include <string>
#include <vector>

#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

// Reads one or more trace files into one trace, in the order given. Errors name
// the file and the JSON path of the field (e.g. "requests[3].in").
Trace load_claude_code_json(const std::vector<std::string>& paths);
// One trace file's JSON text; `file` names it in errors and gives the default session id.
Trace read_claude_code_json(const std::string& text, const std::string& file);

}  // namespace agentsim::wl
