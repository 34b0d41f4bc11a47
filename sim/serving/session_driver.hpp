#pragma once
// The interface the runner drives: a source of requests built from sessions
// (closed loop, open loop with recorded timestamps, Poisson session arrivals).
#include "sim/serving/request.hpp"
#include "workloads/session.hpp"

namespace agentsim::serving {

class SessionDriver {
 public:
  virtual ~SessionDriver() = default;
  // Schedules the first submissions on the simulator.
  virtual void start() = 0;
  virtual long long turns_sent() const = 0;
  virtual long long turns_truncated() const = 0;
};

// The request for `t` sent by `agent`; prompts longer than `max_context_tokens` (> 0)
// are cut to fit as the benchmark does (keep the answer, cut the prompt). Sets `truncated`.
Request turn_request(const wl::Trace& trace, wl::TurnRef ref, int agent, long long max_context_tokens,
                     bool& truncated);

}  // namespace agentsim::serving
