// libFuzzer target: the raw Claude Code trace importer (read_claude_code_json).
// Any input must import or fail with a core::Error.
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/sessions/claude_code_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    agentsim::fuzz::exercise_trace(agentsim::wl::read_claude_code_json(agentsim::fuzz::text_of(data, size), "trace_0001.json"));
  } catch (const agentsim::core::Error&) {
  }
  return 0;
}
