#include "experiments/traceio/trace_files.hpp"

#include <filesystem>

#include "sim/core/atomic_write.hpp"
#include "experiments/traceio/trace_h5.hpp"
#include "workloads/sessions/trace_formats.hpp"
#include "workloads/sessions/trace_jsonl.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;

namespace {
bool h5_name(const std::string& path) { return fs::path(path).extension() == ".h5"; }
}  // namespace

const std::vector<std::string>& trace_file_format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = wl::trace_format_names();
    n.insert(n.begin() + 1, "agentsim-h5");
    return n;
  }();
  return names;
}

wl::Trace load_trace_file(const std::string& format, const std::string& path, const wl::ImportOptions& opt,
                          wl::ImportReport* report) {
  const bool h5 = format == "agentsim-h5" ||
                  (format.empty() && fs::is_regular_file(path) && (h5_name(path) || has_hdf5_signature(path)));
  if (!h5) return wl::load_trace(format, path, opt, report);
  wl::Trace t = read_trace_h5(path);
  if (report) *report = wl::ImportReport{static_cast<long long>(t.sessions.size()), 0, ""};
  return t;
}

void save_trace_file(const wl::Trace& trace, const std::string& path) {
  if (h5_name(path)) {
    write_trace_h5(trace, path);
  } else {
    core::write_file_atomically(path, wl::trace_jsonl(trace));
  }
}

}  // namespace agentsim::exp
