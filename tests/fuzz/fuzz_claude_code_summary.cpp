// libFuzzer target: the Claude Code per-conversation summary CSV (read_claude_code_summary).
// Any input must summarise or fail with a core::Error.
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/sessions/claude_code_summary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(agentsim::fuzz::text_of(data, size));
  try {
    const auto s = agentsim::wl::read_claude_code_summary(in, "traces_summary.csv");
    (void)agentsim::wl::format_summary_stats(s);
    (void)agentsim::wl::summary_stats_json(s);
  } catch (const agentsim::core::Error&) {
  }
  return 0;
}
