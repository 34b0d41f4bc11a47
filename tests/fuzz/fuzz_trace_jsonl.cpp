// libFuzzer target: the trace jsonl trace importer (read_trace_jsonl). Any input must import
// or fail with a core::Error; a crash, sanitizer report or other exception is a finding.
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/sessions/trace_jsonl.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  agentsim::fuzz::import_both_ways(data, size, "trace.jsonl",
                                   [](std::istream& in, const std::string& file, const agentsim::wl::ImportOptions& opt) {
                                     return agentsim::wl::read_trace_jsonl(in, file, opt);
                                   });
  return 0;
}
