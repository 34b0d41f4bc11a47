#pragma once
// Poisson session arrivals with closed-loop turns inside: sessions start at
// exponential intervals (mean 1 / rate) in a pool order shuffled per seed;
// within a session each turn waits for the previous answer and its gap.
#include <cstdint>

#include "sim/core/rng.hpp"
#include "sim/core/simulator.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/session_driver.hpp"

namespace agentsim::serving {

struct PoissonOptions {
  double sessions_per_s = 1;
  std::uint64_t seed = 1;
  long long max_context_tokens = 0;
  double human_gap_cap_s = -1;  // as in ClosedLoopOptions
};

class PoissonSessionDriver : public SessionDriver {
 public:
  // `pool` must outlive the driver and be non-empty.
  PoissonSessionDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                       PoissonOptions opt);
  void start() override;
  long long turns_sent() const override { return sent_; }
  long long turns_truncated() const override { return truncated_; }
  long long sessions_started() const { return started_; }

 private:
  void arrive();
  void send(std::size_t session, std::size_t turn, int agent);

  core::Simulator& sim_;
  RequestSink& replica_;
  const wl::Trace& trace_;
  const std::vector<wl::Session>& pool_;  // trace_.sessions
  PoissonOptions opt_;
  core::RngStream arrivals_;
  std::vector<std::size_t> order_;
  long long started_ = 0;
  long long sent_ = 0;
  long long truncated_ = 0;
};

}  // namespace agentsim::serving
