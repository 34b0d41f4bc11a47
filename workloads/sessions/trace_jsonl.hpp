#pragma once
// The native trace format: JSON Lines, a header line then one session per line
// (schema in docs/trace-format.md). Round-trips every field of wl::Trace.
#include <istream>
#include <ostream>
#include <string>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

void write_trace_jsonl(const Trace& trace, std::ostream& out);
std::string trace_jsonl(const Trace& trace);
// Errors read "file:line: field: what".
Trace read_trace_jsonl(std::istream& in, const std::string& file, const ImportOptions& opt = {},
                       ImportReport* report = nullptr);
Trace load_trace_jsonl(const std::string& path, const ImportOptions& opt = {}, ImportReport* report = nullptr);

}  // namespace agentsim::wl
