#include "sim/serving/poisson_session_driver.hpp"

#include "sim/core/error.hpp"

namespace agentsim::serving {

PoissonSessionDriver::PoissonSessionDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                                           PoissonOptions opt)
    : sim_(sim),
      opt_(opt),
      player_(sim, sink, trace, opt.max_context_tokens, opt.gap_caps),
      arrivals_(opt.seed, "poisson/arrivals"),
      order_(root_sessions(trace)) {
  if (order_.empty()) throw core::Error("Poisson replay needs at least one root session");
  if (!(opt_.sessions_per_s > 0)) throw core::Error("Poisson session rate must be positive");
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
  player_.play(s, 0, agent, nullptr);
  sim_.after(core::to_ticks(arrivals_.exponential(1.0 / opt_.sessions_per_s)), [this] { arrive(); });
}

}  // namespace agentsim::serving
