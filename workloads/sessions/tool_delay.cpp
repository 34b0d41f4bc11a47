#include "workloads/sessions/tool_delay.hpp"

#include "sim/core/rng.hpp"

namespace agentsim::wl {

void apply_tool_delay(Trace& trace, const ToolDelay& rule, std::uint64_t seed) {
  if (rule.kind == ToolDelay::Kind::kRecorded) return;
  core::RngStream rng(seed, "replay/tool_delay");
  for (auto& s : trace.sessions) {
    for (auto& t : s.turns) {
      if (t.gap_kind != GapKind::kTool) continue;
      if (rule.kind == ToolDelay::Kind::kScaled) {
        t.gap_after_s *= rule.scale;
      } else {
        const double u1 = rng.uniform();
        t.gap_after_s = sample_lognormal(rule.drawn, u1, rng.uniform());
      }
    }
  }
}

}  // namespace agentsim::wl
