// libFuzzer target: the azure csv trace importer (read_azure_csv). Any input must import
// or fail with a core::Error; a crash, sanitizer report or other exception is a finding.
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/sessions/azure_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  agentsim::fuzz::import_both_ways(data, size, "AzureLLMInferenceTrace.csv",
                                   [](std::istream& in, const std::string& file, const agentsim::wl::ImportOptions& opt) {
                                     return agentsim::wl::read_azure_csv(in, file, opt);
                                   });
  return 0;
}
