#pragma once
// Shared by the fuzz targets: the fuzz bytes as text, and what every imported
// trace must survive afterwards (statistics and the native round trip), so a
// parser that accepts nonsense without an error is caught downstream.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"
#include "workloads/sessions/trace_jsonl.hpp"
#include "workloads/sessions/trace_stats.hpp"

namespace agentsim::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// An accepted trace must summarise and round-trip through the native format.
inline void exercise_trace(const wl::Trace& trace) {
  const wl::TraceStats stats = wl::compute_stats(trace);
  (void)wl::format_stats(stats);
  (void)wl::stats_json(stats);
  std::istringstream again(wl::trace_jsonl(trace));
  (void)wl::read_trace_jsonl(again, "round-trip.jsonl");
  // Replay follows every prefix link: each must resolve without a cycle or a dangling index.
  for (std::size_t s = 0; s < trace.sessions.size(); ++s) {
    for (std::size_t k = 0; k < trace.sessions[s].turns.size(); ++k) {
      (void)trace.block_ids(wl::TurnRef{static_cast<std::int32_t>(s), static_cast<std::int32_t>(k)});
    }
  }
}

// Runs `read(istream, file, options)` strictly and with skip_bad.
template <class Read>
void import_both_ways(const std::uint8_t* data, std::size_t size, const char* file, Read read) {
  for (const bool skip : {false, true}) {
    std::istringstream in(text_of(data, size));
    wl::ImportOptions opt;
    opt.skip_bad = skip;
    try {
      exercise_trace(read(in, file, opt));
    } catch (const core::Error&) {
      // A located, clean error is the correct outcome for malformed input.
    }
  }
}

}  // namespace agentsim::fuzz
