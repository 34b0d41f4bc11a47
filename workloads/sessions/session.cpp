#include "workloads/sessions/session.hpp"

#include "sim/core/error.hpp"

namespace agentsim::wl {

std::size_t Trace::turn_count() const {
  std::size_t n = 0;
  for (const auto& s : sessions) n += s.turns.size();
  return n;
}

std::vector<std::uint64_t> Trace::block_ids(TurnRef ref) const {
  // Oldest ancestor first, into one buffer (a recursive copy per level is quadratic in depth).
  std::vector<TurnRef> path{ref};
  for (;;) {
    const Turn& t = sessions.at(static_cast<std::size_t>(path.back().session))
                        .turns.at(static_cast<std::size_t>(path.back().turn));
    if (!t.prefix_parent.valid()) break;
    path.push_back(t.prefix_parent);
  }
  std::vector<std::uint64_t> ids;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Session& s = sessions.at(static_cast<std::size_t>(it->session));
    const Turn& t = s.turns.at(static_cast<std::size_t>(it->turn));
    if (t.prefix_parent.valid()) {
      if (ids.size() < static_cast<std::size_t>(t.prefix_blocks)) {
        throw core::Error("trace " + name + ": turn " + std::to_string(it->turn) + " of " + s.id +
                          " shares more blocks than its prefix parent has");
      }
      ids.resize(static_cast<std::size_t>(t.prefix_blocks));
    }
    for (auto i = t.runs_begin; i < t.runs_end; ++i) {
      for (std::uint32_t k = 0; k < s.block_runs[i].count; ++k) ids.push_back(s.block_runs[i].first + k);
    }
  }
  return ids;
}

std::size_t Trace::prompt_blocks(TurnRef ref) const {
  const Session& s = sessions.at(static_cast<std::size_t>(ref.session));
  const Turn& t = s.turns.at(static_cast<std::size_t>(ref.turn));
  const std::size_t shared = t.prefix_parent.valid() ? static_cast<std::size_t>(t.prefix_blocks) : 0;
  return shared + static_cast<std::size_t>(s.new_blocks(t));
}

std::uint64_t Trace::block_id(TurnRef ref, std::size_t i) const {
  for (;;) {
    const Session& s = sessions.at(static_cast<std::size_t>(ref.session));
    const Turn& t = s.turns.at(static_cast<std::size_t>(ref.turn));
    const std::size_t shared = t.prefix_parent.valid() ? static_cast<std::size_t>(t.prefix_blocks) : 0;
    if (i < shared) {
      ref = t.prefix_parent;
      continue;
    }
    std::size_t k = i - shared;
    for (auto r = t.runs_begin; r < t.runs_end; ++r) {
      if (k < s.block_runs[r].count) return s.block_runs[r].first + k;
      k -= s.block_runs[r].count;
    }
    throw core::Error("trace " + name + ": block " + std::to_string(i) + " past the prompt of turn " +
                      std::to_string(ref.turn) + " of " + s.id);
  }
}

void annotate_turns(Session& s) {
  for (std::size_t k = 0; k < s.turns.size(); ++k) {
    Turn& t = s.turns[k];
    if (k + 1 == s.turns.size()) {
      t.gap_kind = GapKind::kNone;
    } else {
      t.gap_kind = t.stop == StopReason::kEndTurn ? GapKind::kHuman : GapKind::kTool;
    }
    t.prefix_break = k > 0 && 2 * t.input_tokens < s.turns[k - 1].input_tokens;
  }
}

StopReason parse_stop_reason(const std::string& s) {
  if (s.empty()) return StopReason::kUnknown;
  if (s == "tool_use") return StopReason::kToolUse;
  if (s == "end_turn") return StopReason::kEndTurn;
  if (s == "max_tokens") return StopReason::kMaxTokens;
  return StopReason::kOther;
}

const char* to_string(GapKind k) {
  switch (k) {
    case GapKind::kTool: return "tool";
    case GapKind::kHuman: return "human";
    case GapKind::kNone: break;
  }
  return "none";
}

const char* to_string(StopReason s) {
  switch (s) {
    case StopReason::kToolUse: return "tool_use";
    case StopReason::kEndTurn: return "end_turn";
    case StopReason::kMaxTokens: return "max_tokens";
    case StopReason::kOther: return "other";
    case StopReason::kUnknown: break;
  }
  return "";
}

}  // namespace agentsim::wl
