#pragma once
// Loads a trace in any supported format, named or detected from the file.
#include <string>
#include <vector>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

// Valid format names, for error messages and --help.
const std::vector<std::string>& trace_format_names();
// "claude-code-csv", "claude-code-json", "mooncake", "azure" or "agentsim" from the
// file's header/first line ("agentsim-h5" for an HDF5 file, which exp::load_trace_file
// reads); throws naming the file when none fits.
std::string detect_trace_format(const std::string& path);
// `format` empty = detect. A directory of claude-code JSON files loads them all (sorted).
Trace load_trace(const std::string& format, const std::string& path, const ImportOptions& opt = {},
                 ImportReport* report = nullptr);

}  // namespace agentsim::wl
