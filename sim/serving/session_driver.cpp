#include "sim/serving/session_driver.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::serving {

Request turn_request(const wl::Trace& trace, wl::TurnRef ref, int agent, long long max_context_tokens,
                     bool& truncated) {
  const wl::Turn& t = trace.sessions[static_cast<std::size_t>(ref.session)].turns[static_cast<std::size_t>(ref.turn)];
  Request r;
  r.trace = &trace;
  r.turn = ref;
  r.agent = agent;
  r.output_tokens = std::max<long long>(1, t.output_tokens);
  r.input_tokens = std::max<long long>(1, t.input_tokens);
  truncated = false;
  if (max_context_tokens > 0 && r.input_tokens + r.output_tokens > max_context_tokens) {
    r.output_tokens = std::min(r.output_tokens, max_context_tokens / 2);
    r.input_tokens = max_context_tokens - r.output_tokens;
    truncated = true;
  }
  return r;
}

double replay_gap_s(const wl::Turn& t, const GapCaps& caps) {
  if (t.gap_kind == wl::GapKind::kHuman && caps.human_s >= 0) return std::min(t.gap_after_s, caps.human_s);
  if (t.gap_kind == wl::GapKind::kTool && caps.tool_s >= 0) return std::min(t.gap_after_s, caps.tool_s);
  return t.gap_after_s;
}

std::vector<std::size_t> root_sessions(const wl::Trace& trace) {
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < trace.sessions.size(); ++i) {
    if (trace.sessions[i].spawn.parent_session < 0 && !trace.sessions[i].turns.empty()) roots.push_back(i);
  }
  return roots;
}

SessionTreePlayer::SessionTreePlayer(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                                     long long max_context_tokens, GapCaps gap_caps)
    : sim_(sim),
      sink_(sink),
      trace_(trace),
      max_context_tokens_(max_context_tokens),
      gap_caps_(gap_caps),
      children_(trace.sessions.size()) {
  for (std::size_t c = 0; c < trace.sessions.size(); ++c) {
    const wl::SpawnLink& sp = trace.sessions[c].spawn;
    if (sp.parent_session < 0 || trace.sessions[c].turns.empty()) continue;
    if (static_cast<std::size_t>(sp.parent_session) >= trace.sessions.size()) {
      throw core::Error("trace " + trace.name + ": sub-agent " + trace.sessions[c].id + " names a missing parent");
    }
    children_[static_cast<std::size_t>(sp.parent_session)].emplace_back(sp.after_turn, c);
  }
  for (auto& list : children_) std::sort(list.begin(), list.end());
}

std::size_t SessionTreePlayer::new_run(std::size_t session, std::size_t turn, int agent, std::size_t parent,
                                       std::function<void()> done) {
  std::size_t r;
  if (!free_.empty()) {
    r = free_.back();
    free_.pop_back();
  } else {
    r = runs_.size();
    runs_.emplace_back();
  }
  runs_[r] = Run{session, turn, agent, 0, false, false, parent, std::move(done)};
  ++sessions_started_;
  return r;
}

void SessionTreePlayer::play(std::size_t session, std::size_t first_turn, int agent, std::function<void()> done) {
  const std::size_t run = new_run(session, first_turn, agent, kNone, std::move(done));
  runs_[run].warm = first_turn > 0;
  send(run);
}

void SessionTreePlayer::send(std::size_t run) {
  const Run& r = runs_[run];
  bool truncated = false;
  const wl::TurnRef ref{static_cast<std::int32_t>(r.session), static_cast<std::int32_t>(r.turn)};
  Request req = turn_request(trace_, ref, r.agent, max_context_tokens_, truncated);
  truncated_ += truncated ? 1 : 0;
  if (r.warm) {
    // Its previous prompt, which the turn extends (the blocks it shares with its prefix parent).
    const wl::Turn& t = trace_.sessions[r.session].turns[r.turn];
    if (t.prefix_parent.valid() && !truncated) {
      req.warm_prefix_tokens =
          std::min(req.input_tokens - 1, static_cast<long long>(t.prefix_blocks) * trace_.block_size_tokens);
    }
    runs_[run].warm = false;
  }
  ++sent_;
  sink_.submit(req, [this, run](const metrics::RequestRecord&) { on_answer(run); });
}

void SessionTreePlayer::on_answer(std::size_t run) {
  const std::size_t session = runs_[run].session;
  const std::size_t turn = runs_[run].turn;
  const int agent = runs_[run].agent;
  const auto& kids = children_[session];
  auto it = std::lower_bound(kids.begin(), kids.end(), std::make_pair(static_cast<std::int32_t>(turn), std::size_t{0}));
  for (; it != kids.end() && it->first == static_cast<std::int32_t>(turn); ++it) {
    const bool async = trace_.sessions[it->second].spawn.async;
    if (!async) ++runs_[run].pending_children;
    // new_run may grow runs_: index, never hold references across it.
    send(new_run(it->second, 0, agent, async ? kNone : run, nullptr));
  }
  const wl::Session& s = trace_.sessions[session];
  if (turn + 1 >= s.turns.size()) {
    runs_[run].last_done = true;
  } else {
    runs_[run].gap_pending = true;
    sim_.after(core::to_ticks(replay_gap_s(s.turns[turn], gap_caps_)), [this, run] {
      runs_[run].gap_pending = false;
      advance(run);
    });
  }
  advance(run);
}

void SessionTreePlayer::advance(std::size_t run) {
  Run& r = runs_[run];
  if (r.gap_pending || r.pending_children > 0) return;
  if (!r.last_done) {
    ++r.turn;
    send(run);
    return;
  }
  const std::size_t parent = r.parent;
  std::function<void()> done = std::move(r.done);
  free_.push_back(run);
  if (parent != kNone) {
    --runs_[parent].pending_children;
    advance(parent);
  }
  if (done) done();
}

}  // namespace agentsim::serving
