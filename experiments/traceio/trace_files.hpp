#pragma once
// Trace files in every format the CLI and experiments read or write: the
// workloads importers plus the HDF5 form ("agentsim-h5"), which lives here
// because HDF5 is confined to the experiments layer.
#include <string>
#include <vector>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

// wl::trace_format_names() plus "agentsim-h5".
const std::vector<std::string>& trace_file_format_names();
// `format` empty = detect: a ".h5" name or the HDF5 signature reads the HDF5 form,
// anything else goes to wl::load_trace.
wl::Trace load_trace_file(const std::string& format, const std::string& path, const wl::ImportOptions& opt = {},
                          wl::ImportReport* report = nullptr);
// Writes the HDF5 form for a ".h5" name, else JSON Lines; atomically either way.
void save_trace_file(const wl::Trace& trace, const std::string& path);

}  // namespace agentsim::exp
