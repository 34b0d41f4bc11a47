#pragma once
// A request's path outside the engine loop, as one fixed delay in front of a sink: the
// client's HTTP request, the API server's tokeniser and its hand-over to the scheduler, and
// the first chunk's way back (detokeniser, server-sent event, client). The engine sees a
// request `latency_s` after the client sent it; its record counts TTFT and E2E latency from
// the send. One delay stands for both directions: no metric separates the way in from the
// way back (a closed-loop client waits for both before its next request either way).
#include "sim/core/simulator.hpp"
#include "sim/serving/request_sink.hpp"

namespace agentsim::serving {

class RequestPath : public RequestSink {
 public:
  // `engine` must outlive this; `latency_s` >= 0 (0: requests pass straight through).
  RequestPath(core::Simulator& sim, RequestSink& engine, double latency_s);
  void submit(const Request& r, CompletionFn done) override;

 private:
  core::Simulator& sim_;
  RequestSink& engine_;
  core::Ticks latency_;
};

}  // namespace agentsim::serving
