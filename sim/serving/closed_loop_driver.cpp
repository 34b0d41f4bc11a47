#include "sim/serving/closed_loop_driver.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::serving {

ClosedLoopDriver::ClosedLoopDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                                   ClosedLoopOptions opt)
    : sim_(sim),
      trace_(trace),
      opt_(opt),
      player_(sim, sink, trace, opt.max_context_tokens, opt.gap_caps),
      start_rng_(opt.seed, "closed-loop/start"),
      order_(root_sessions(trace)) {
  if (order_.empty()) throw core::Error("closed-loop replay needs at least one root session");
  core::RngStream shuffle_rng(opt_.seed, "closed-loop/session-order");
  // Fisher-Yates with our own RNG: std::shuffle's algorithm is library-defined.
  for (std::size_t i = order_.size(); i > 1; --i) {
    std::swap(order_[i - 1], order_[shuffle_rng.uniform_index(i)]);
  }
}

void ClosedLoopDriver::start() {
  core::RngStream turn_rng(opt_.seed, "closed-loop/start-turn");
  // random_start: each agent's first turn is uniform over every turn of the pool (a session in
  // proportion to its turns, then a turn of it): the closed loop's steady state, so requests from
  // the start carry the pool's per-request contexts rather than early turns' short ones.
  std::vector<std::uint64_t> turns_before;  // turns of order_[0..i)
  if (opt_.random_start) {
    turns_before.reserve(order_.size() + 1);
    turns_before.push_back(0);
    for (const std::size_t s : order_) turns_before.push_back(turns_before.back() + trace_.sessions[s].turns.size());
  }
  for (int a = 0; a < opt_.agents; ++a) {
    std::size_t s = next_session();
    if (s == kNone) break;  // fewer sessions than agents
    ++playing_;
    std::size_t first = 0;
    if (opt_.random_start) {
      const std::uint64_t t = turn_rng.uniform_index(turns_before.back());
      const auto i = static_cast<std::size_t>(std::upper_bound(turns_before.begin(), turns_before.end(), t) - turns_before.begin()) - 1;
      s = order_[i];
      first = static_cast<std::size_t>(t - turns_before[i]);
    }
    const double offset = opt_.start_spread_s > 0 ? start_rng_.uniform() * opt_.start_spread_s : 0.0;
    sim_.after(core::to_ticks(offset), [this, a, s, first] { play(a, s, first); });
  }
  if (opt_.session_limit > 0 && playing_ == 0) finished_at_s_ = sim_.now_s();  // nothing to send
}

std::size_t ClosedLoopDriver::next_session() {
  if (opt_.session_limit > 0 && static_cast<long long>(next_in_order_) >= opt_.session_limit) return kNone;
  const std::size_t s = order_[next_in_order_ % order_.size()];
  ++next_in_order_;
  return s;
}

void ClosedLoopDriver::play(int agent, std::size_t session, std::size_t first_turn) {
  player_.play(session, first_turn, agent, [this, agent] {
    const std::size_t s = next_session();
    if (s == kNone) {
      stop_agent();
    } else {
      sim_.after(0, [this, agent, s] { play(agent, s, 0); });
    }
  });
}

void ClosedLoopDriver::stop_agent() {
  if (--playing_ == 0) finished_at_s_ = sim_.now_s();
}

}  // namespace agentsim::serving
