#include "workloads/sessions/claude_code_summary.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "workloads/sessions/trace_formats.hpp"

namespace agentsim::wl {
namespace {

TEST(ClaudeCodeSummary, TotalsMatchTheProvenance) {
  // PROVENANCE.md: 710 traces, 49,334 requests; ideal in-session hit rate 96.3%.
  const std::string path = std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code/traces_summary.csv";
  EXPECT_EQ(detect_trace_format(path), "claude-code-summary");
  const ConversationSummaryStats s = read_claude_code_summary(path);
  EXPECT_EQ(s.conversations, 710);
  EXPECT_EQ(s.requests, 49334);
  EXPECT_NEAR(s.hit_rate, 0.963, 0.0005);
  EXPECT_THROW(load_trace("", path), core::Error) << "a summary cannot be replayed";
}

TEST(ClaudeCodeSummary, BadRowNamesLineAndColumn) {
  const auto path = std::filesystem::temp_directory_path() / "agentsim_summary_bad.csv";
  std::ofstream(path) << "trace_id,n_requests,n_subagents,block_size,tool_tokens,system_tokens,models,first_in,"
                         "last_in,sum_in,sum_out,sum_cached_tokens_lcp,cache_hit_rate_lcp,duration_s\n"
                         "t1,3,0,64,1,1,m,10,20,100,5,200,0.9,10\n";
  try {
    read_claude_code_summary(path.string());
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ":2: sum_cached_tokens_lcp: expected a count in [0, sum_in]");
  }
  std::filesystem::remove(path);
}

// tests/fuzz/regressions/claude_code_summary/sum_in_overflow.csv: two rows of 9e18 input
// tokens overflowed the signed total (undefined behaviour; UBSan reports it, a plain build
// printed a negative count). Negative counts were also summed silently.
TEST(ClaudeCodeSummary, TotalsThatOverflowOrNegativeCountsAreErrors) {
  const std::string header = "n_requests,n_subagents,sum_in,sum_out,sum_cached_tokens_lcp,duration_s\n";
  auto error_of = [&](const std::string& rows) -> std::string {
    std::istringstream in(header + rows);
    try {
      read_claude_code_summary(in, "s.csv");
    } catch (const core::Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("1,0,9000000000000000000,1,0,1\n1,0,9000000000000000000,1,0,1\n"),
            "s.csv:3: sum_in: total exceeds 2^63 - 1");
  EXPECT_EQ(error_of("1,-4,100,1,0,1\n"), "s.csv:2: n_subagents: expected a non-negative count");
  EXPECT_EQ(error_of("1,0,100,1,0,1\n"), "no error");
}

}  // namespace
}  // namespace agentsim::wl
