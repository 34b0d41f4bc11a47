#pragma once
// Poisson session arrivals with closed-loop turns inside: sessions start at
// exponential intervals (mean 1 / rate) in a pool order shuffled per seed;
// within a session each turn waits for the previous answer and its gap. Only
// root sessions arrive; their sub-agents run as SessionTreePlayer describes.
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
  GapCaps gap_caps;             // as in ClosedLoopOptions
};

class PoissonSessionDriver : public SessionDriver {
 public:
  // `trace` must outlive the driver and hold at least one root session.
  PoissonSessionDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                       PoissonOptions opt);
  void start() override;
  long long turns_sent() const override { return player_.turns_sent(); }
  long long turns_truncated() const override { return player_.turns_truncated(); }
  // Root sessions that arrived (sub-agents not counted).
  long long sessions_started() const { return started_; }

 private:
  void arrive();

  core::Simulator& sim_;
  PoissonOptions opt_;
  SessionTreePlayer player_;
  core::RngStream arrivals_;
  std::vector<std::size_t> order_;  // root sessions, shuffled per seed
  long long started_ = 0;
};

}  // namespace agentsim::serving
