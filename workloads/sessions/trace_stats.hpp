#pragma once
// Summary statistics of a trace: counts, token and gap percentiles, and the
// ideal prefix-cache hit rate with an infinite cache.
#include <string>

#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

struct Distribution {
  long long n = 0;
  double mean = 0, min = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};

// Percentiles by linear interpolation between order statistics (sorts `values`).
Distribution distribution_of(std::vector<double>& values);

struct TraceStats {
  long long sessions = 0;        // all sessions, sub-agents included
  long long root_sessions = 0;   // sessions with no parent
  long long subagents = 0;       // sessions spawned by another
  long long turns = 0;           // requests
  long long prefix_breaks = 0;
  long long truncated = 0;       // turns cut to a context limit
  long long input_tokens = 0, output_tokens = 0;
  Distribution input, output, gap, tool_gap, human_gap, turns_per_session;
  double span_s = 0;  // last recorded arrival (open-loop traces), 0 if none
  // Hit rate over input tokens: a prompt's leading blocks already seen earlier in trace
  // order count as hits (tokens capped at the prompt's length). In-session: seen in the
  // same session tree; global: seen anywhere the trace's ids are comparable. -1 = no block data.
  double hit_in_session = -1;
  double hit_global = -1;
  long long unique_blocks = 0;
};

TraceStats compute_stats(const Trace& trace);

// Human-readable report (one "name: value" per line) and JSON form.
std::string format_stats(const TraceStats& s);
std::string stats_json(const TraceStats& s);

}  // namespace agentsim::wl
