#pragma once
// How a replay times tool calls: as recorded, recorded times scaled, or drawn
// from a distribution (the benchmark replays a baseline CPU tool time, not the
// recorded one).
#include <cstdint>

#include "workloads/sessions/session_generator.hpp"

namespace agentsim::wl {

struct ToolDelay {
  enum class Kind : std::uint8_t { kRecorded, kScaled, kDrawn };
  Kind kind = Kind::kRecorded;
  double scale = 1.0;  // kScaled: recorded delay x scale
  LogNormalSpec drawn{1, 1};  // kDrawn: every tool gap drawn from this log-normal (seconds)
};

// Rewrites every tool gap of `trace` by `rule`; draws are deterministic in `seed`.
void apply_tool_delay(Trace& trace, const ToolDelay& rule, std::uint64_t seed);

}  // namespace agentsim::wl
