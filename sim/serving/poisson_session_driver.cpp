#include "sim/serving/poisson_session_driver.hpp"

#include <numeric>

#include "sim/core/error.hpp"
#include "sim/serving/closed_loop_driver.hpp"

namespace agentsim::serving {

PoissonSessionDriver::PoissonSessionDriver(core::Simulator& sim, RequestSink& sink,
                                           const wl::Trace& trace, PoissonOptions opt)
    : sim_(sim), replica_(sink), trace_(trace), pool_(trace.sessions), opt_(opt), arrivals_(opt.seed, "poisson/arrivals") {
  if (pool_.empty()) throw core::Error("Poisson replay needs at least one session");
  if (!(opt_.sessions_per_s > 0)) throw core::Error("Poisson session rate must be positive");
  order_.resize(pool_.size());
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  core::RngStream shuffle_rng(opt_.seed, "poisson/session-order");
  for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[shuffle_rng.uniform_index(i)]);
}

void PoissonSessionDriver::start() {
  sim_.after(core::to_ticks(arrivals_.exponential(1.0 / opt_.sessions_per_s)), [this] { arrive(); });
}

void PoissonSessionDriver::arrive() {
  const std::size_t s = order_[static_cast<std::size_t>(started_) % order_.size()];
  const int agent = static_cast<int>(started_);
  ++started_;
  send(s, 0, agent);
  sim_.after(core::to_ticks(arrivals_.exponential(1.0 / opt_.sessions_per_s)), [this] { arrive(); });
}

void PoissonSessionDriver::send(std::size_t s, std::size_t k, int agent) {
  bool truncated = false;
  const Request r = turn_request(trace_, wl::TurnRef{static_cast<std::int32_t>(s), static_cast<std::int32_t>(k)}, agent,
                                 opt_.max_context_tokens, truncated);
  truncated_ += truncated ? 1 : 0;
  ++sent_;
  replica_.submit(r, [this, s, k, agent](const metrics::RequestRecord&) {
    if (k + 1 >= pool_[s].turns.size()) return;
    const double gap = replay_gap_s(pool_[s].turns[k], opt_.human_gap_cap_s);
    sim_.after(core::to_ticks(gap), [this, s, k, agent] { send(s, k + 1, agent); });
  });
}

}  // namespace agentsim::serving
