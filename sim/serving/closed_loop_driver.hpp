#pragma once
// Closed-loop agents: each agent sends turn k+1 only after turn k's answer
// finished and the turn's recorded gap passed. When its session ends, the agent
// takes the next root session of a pool shuffled once per seed (cycling through it; with
// `session_limit` the run is finite: once that many root sessions began, an agent whose
// session ends stops, as a benchmark client sending a fixed number of prompts does). Sub-agents of
// that session run as SessionTreePlayer describes, under the same agent id:
// `agents` counts root agents, and sub-agents add to the requests in flight.
#include <cstdint>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/core/simulator.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/session_driver.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::serving {

struct ClosedLoopOptions {
  int agents = 1;
  std::uint64_t seed = 1;
  long long max_context_tokens = 0;  // prompts are truncated to fit (0 = no limit)
  double start_spread_s = 0;         // agents start uniformly in [0, spread)
  bool random_start = false;         // each agent's first turn is uniform over the pool's turns
  GapCaps gap_caps;                  // recorded gaps cut to these (< 0 = as recorded)
  long long session_limit = 0;       // > 0: root sessions begun in all, then agents stop
};

class ClosedLoopDriver : public SessionDriver {
 public:
  // `trace` must outlive the driver and hold at least one root session.
  ClosedLoopDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                   ClosedLoopOptions opt);

  // Schedules every agent's first turn.
  void start() override;

  long long turns_sent() const override { return player_.turns_sent(); }
  long long turns_truncated() const override { return player_.turns_truncated(); }
  // Sessions begun, sub-agents included.
  long long sessions_started() const { return player_.sessions_started(); }
  double finished_at_s() const override { return finished_at_s_; }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t next_session();  // kNone once session_limit root sessions began
  void play(int agent, std::size_t session, std::size_t first_turn);

  core::Simulator& sim_;
  const wl::Trace& trace_;
  ClosedLoopOptions opt_;
  SessionTreePlayer player_;
  core::RngStream start_rng_;
  std::vector<std::size_t> order_;  // root sessions, shuffled per seed
  std::size_t next_in_order_ = 0;
  int playing_ = 0;              // agents whose chain of sessions has not stopped
  double finished_at_s_ = -1;    // when the last one stopped (session_limit only)
  void stop_agent();
};

}  // namespace agentsim::serving
