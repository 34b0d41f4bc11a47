#pragma once
// The per-conversation summary of the Claude Code traces (`traces_summary.csv`,
// one row per trace file). It holds totals, not requests, so it can be
// summarised but not replayed.
#include <istream>
#include <string>

#include "workloads/sessions/trace_stats.hpp"

namespace agentsim::wl {

struct ConversationSummaryStats {
  long long conversations = 0;
  long long requests = 0;         // sum of n_requests
  long long subagents = 0;        // sum of n_subagents
  long long input_tokens = 0;     // sum of sum_in
  long long output_tokens = 0;    // sum of sum_out
  long long cached_tokens = 0;    // sum of sum_cached_tokens_lcp
  double hit_rate = 0;            // cached / input: the ideal in-session prefix hit rate
  Distribution requests_per_conversation, duration_s;
};

// Reads the CSV; errors name file, line and column.
ConversationSummaryStats read_claude_code_summary(const std::string& path);
ConversationSummaryStats read_claude_code_summary(std::istream& in, const std::string& path);
std::string format_summary_stats(const ConversationSummaryStats& s);
std::string summary_stats_json(const ConversationSummaryStats& s);

}  // namespace agentsim::wl
