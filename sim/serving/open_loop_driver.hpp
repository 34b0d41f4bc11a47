#pragma once
// Open-loop replay: every turn is submitted at its recorded time (session start
// + turn send time, scaled), whether or not earlier answers finished.
#include "sim/core/simulator.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/session_driver.hpp"

namespace agentsim::serving {

struct OpenLoopOptions {
  double time_scale = 1;             // recorded times are multiplied by this (< 1 = faster)
  long long max_context_tokens = 0;  // prompts are truncated to fit (0 = no limit)
};

class OpenLoopDriver : public SessionDriver {
 public:
  // `pool` must outlive the driver; turns without a recorded time are sent at their session's start.
  OpenLoopDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace, OpenLoopOptions opt);
  void start() override;
  long long turns_sent() const override { return sent_; }
  long long turns_truncated() const override { return truncated_; }

 private:
  core::Simulator& sim_;
  RequestSink& replica_;
  const wl::Trace& trace_;
  const std::vector<wl::Session>& pool_;  // trace_.sessions
  OpenLoopOptions opt_;
  long long sent_ = 0;
  long long truncated_ = 0;
};

}  // namespace agentsim::serving
