#include "workloads/sessions/claude_code_summary.hpp"

#include <cstdio>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace agentsim::wl {

ConversationSummaryStats read_claude_code_summary(const std::string& path) {
  std::ifstream in = core::open_input(path, "trace summary");
  return read_claude_code_summary(in, path);
}

ConversationSummaryStats read_claude_code_summary(std::istream& in, const std::string& path) {
  core::CsvReader csv(in, path);
  const auto c_req = csv.column("n_requests"), c_sub = csv.column("n_subagents"), c_in = csv.column("sum_in"),
             c_out = csv.column("sum_out"), c_cached = csv.column("sum_cached_tokens_lcp"),
             c_dur = csv.column("duration_s");
  ConversationSummaryStats s;
  std::vector<double> reqs, durs;
  // Adds a non-negative count to a total; a sum past 2^63 is an error, not a wrapped number.
  auto add = [&](long long& total, std::size_t col, long long v) {
    if (v < 0) throw csv.error_at(col, "expected a non-negative count");
    if (__builtin_add_overflow(total, v, &total)) throw csv.error_at(col, "total exceeds 2^63 - 1");
  };
  while (csv.next()) {
    const long long n = csv.integer(c_req);
    const long long cached = csv.integer(c_cached);
    const long long input = csv.integer(c_in);
    if (n < 0) throw csv.error_at(c_req, "expected a non-negative count");
    if (cached < 0 || cached > input) throw csv.error_at(c_cached, "expected a count in [0, sum_in]");
    ++s.conversations;
    add(s.requests, c_req, n);
    add(s.subagents, c_sub, csv.integer(c_sub));
    add(s.input_tokens, c_in, input);
    add(s.output_tokens, c_out, csv.integer(c_out));
    add(s.cached_tokens, c_cached, cached);
    reqs.push_back(static_cast<double>(n));
    durs.push_back(csv.number(c_dur));
  }
  s.hit_rate = s.input_tokens > 0 ? static_cast<double>(s.cached_tokens) / static_cast<double>(s.input_tokens) : 0;
  s.requests_per_conversation = distribution_of(reqs);
  s.duration_s = distribution_of(durs);
  return s;
}

std::string format_summary_stats(const ConversationSummaryStats& s) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "per-conversation summary (totals only; per-request statistics need requests.csv)\n"
                "conversations:     %lld (%lld sub-agents)\n"
                "requests:          %lld\n"
                "input tokens:      %lld\n"
                "output tokens:     %lld\n"
                "requests/conv.     p50=%.1f p90=%.1f max=%.1f\n"
                "duration (s)       p50=%.1f p90=%.1f max=%.1f\n"
                "ideal hit rate:    in-session %.1f%%\n",
                s.conversations, s.subagents, s.requests, s.input_tokens, s.output_tokens,
                s.requests_per_conversation.p50, s.requests_per_conversation.p90, s.requests_per_conversation.max,
                s.duration_s.p50, s.duration_s.p90, s.duration_s.max, 100.0 * s.hit_rate);
  return buf;
}

std::string summary_stats_json(const ConversationSummaryStats& s) {
  nlohmann::ordered_json j;
  j["kind"] = "conversation-summary";
  j["conversations"] = s.conversations;
  j["subagents"] = s.subagents;
  j["requests"] = s.requests;
  j["input_tokens"] = s.input_tokens;
  j["output_tokens"] = s.output_tokens;
  j["cached_tokens"] = s.cached_tokens;
  j["hit_in_session"] = s.hit_rate;
  j["requests_per_conversation_p50"] = s.requests_per_conversation.p50;
  j["requests_per_conversation_p90"] = s.requests_per_conversation.p90;
  return j.dump(2) + "\n";
}

}  // namespace agentsim::wl
