#pragma once
// The compact binary trace (format "agentsim-h5"): the fields of wl::Trace as
// compressed column datasets in one HDF5 file (schema in docs/trace-format.md).
#include <string>

#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

// Writes the whole file or nothing (temporary file renamed into place).
void write_trace_h5(const wl::Trace& trace, const std::string& path);
// Reads a file written by write_trace_h5; errors name the file and dataset.
wl::Trace read_trace_h5(const std::string& path);
// True when the file starts with the HDF5 signature.
bool has_hdf5_signature(const std::string& path);

}  // namespace agentsim::exp
