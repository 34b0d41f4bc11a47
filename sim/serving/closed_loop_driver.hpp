#pragma once
// Closed-loop agents: each agent sends turn k+1 only after turn k's answer
// finished and the turn's recorded gap passed. When its session ends, the agent
// takes the next session of a pool shuffled once per seed.
#include <cstdint>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/core/simulator.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/session_driver.hpp"
#include "workloads/session.hpp"

namespace agentsim::serving {

struct ClosedLoopOptions {
  int agents = 1;
  std::uint64_t seed = 1;
  long long max_context_tokens = 0;  // prompts are truncated to fit (0 = no limit)
  double start_spread_s = 0;         // agents start uniformly in [0, spread)
  bool random_start = false;         // each agent's first session starts at a uniform turn
  double human_gap_cap_s = -1;       // human gaps are cut to this (< 0 = as recorded)
};

// The delay after `t` under the options' human-gap cap.
double replay_gap_s(const wl::Turn& t, double human_gap_cap_s);

class ClosedLoopDriver : public SessionDriver {
 public:
  // `pool` must outlive the driver and be non-empty.
  ClosedLoopDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                   ClosedLoopOptions opt);

  // Schedules every agent's first turn.
  void start() override;

  long long turns_sent() const override { return turns_sent_; }
  long long turns_truncated() const override { return truncated_; }

 private:
  struct Agent {
    std::size_t session = 0;  // index into pool
    std::size_t turn = 0;
  };
  void next_session(int agent);
  void send(int agent);
  void on_done(int agent);

  core::Simulator& sim_;
  RequestSink& replica_;
  const wl::Trace& trace_;
  const std::vector<wl::Session>& pool_;  // trace_.sessions
  ClosedLoopOptions opt_;
  core::RngStream start_rng_;
  std::vector<std::size_t> order_;  // pool order, shuffled per seed
  std::size_t next_in_order_ = 0;
  std::vector<Agent> agents_;
  long long turns_sent_ = 0;
  long long truncated_ = 0;
};

}  // namespace agentsim::serving
