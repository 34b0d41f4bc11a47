#include "sim/serving/closed_loop_driver.hpp"

#include <algorithm>
#include <numeric>

#include "sim/core/error.hpp"

namespace agentsim::serving {

ClosedLoopDriver::ClosedLoopDriver(core::Simulator& sim, RequestSink& sink,
                                   const wl::Trace& trace, ClosedLoopOptions opt)
    : sim_(sim), replica_(sink), trace_(trace), pool_(trace.sessions), opt_(opt), start_rng_(opt.seed, "closed-loop/start") {
  if (pool_.empty()) throw core::Error("closed-loop replay needs at least one session");
  order_.resize(pool_.size());
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  core::RngStream shuffle_rng(opt_.seed, "closed-loop/session-order");
  // Fisher-Yates with our own RNG: std::shuffle's algorithm is library-defined.
  for (std::size_t i = order_.size(); i > 1; --i) {
    std::swap(order_[i - 1], order_[shuffle_rng.uniform_index(i)]);
  }
  agents_.resize(static_cast<std::size_t>(opt_.agents));
}

double replay_gap_s(const wl::Turn& t, double human_gap_cap_s) {
  if (t.gap_kind == wl::GapKind::kHuman && human_gap_cap_s >= 0) return std::min(t.gap_after_s, human_gap_cap_s);
  return t.gap_after_s;
}

void ClosedLoopDriver::start() {
  core::RngStream turn_rng(opt_.seed, "closed-loop/start-turn");
  for (int a = 0; a < opt_.agents; ++a) {
    next_session(a);
    if (opt_.random_start) {
      Agent& ag = agents_[static_cast<std::size_t>(a)];
      ag.turn = static_cast<std::size_t>(turn_rng.uniform_index(pool_[ag.session].turns.size()));
    }
    const double offset = opt_.start_spread_s > 0 ? start_rng_.uniform() * opt_.start_spread_s : 0.0;
    sim_.after(core::to_ticks(offset), [this, a] { send(a); });
  }
}

void ClosedLoopDriver::next_session(int agent) {
  Agent& ag = agents_[static_cast<std::size_t>(agent)];
  ag.session = order_[next_in_order_ % order_.size()];
  ++next_in_order_;
  ag.turn = 0;
}

void ClosedLoopDriver::send(int agent) {
  const Agent& ag = agents_[static_cast<std::size_t>(agent)];
  bool truncated = false;
  const wl::TurnRef ref{static_cast<std::int32_t>(ag.session), static_cast<std::int32_t>(ag.turn)};
  const Request r = turn_request(trace_, ref, agent, opt_.max_context_tokens, truncated);
  truncated_ += truncated ? 1 : 0;
  ++turns_sent_;
  replica_.submit(r, [this, agent](const metrics::RequestRecord&) { on_done(agent); });
}

void ClosedLoopDriver::on_done(int agent) {
  Agent& ag = agents_[static_cast<std::size_t>(agent)];
  const wl::Session& s = pool_[ag.session];
  const double gap = replay_gap_s(s.turns[ag.turn], opt_.human_gap_cap_s);
  ++ag.turn;
  if (ag.turn >= s.turns.size()) {
    next_session(agent);
    sim_.after(0, [this, agent] { send(agent); });
    return;
  }
  sim_.after(core::to_ticks(gap), [this, agent] { send(agent); });
}

}  // namespace agentsim::serving
