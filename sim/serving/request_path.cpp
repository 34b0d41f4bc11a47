#include "sim/serving/request_path.hpp"

#include <memory>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/core/time.hpp"

namespace agentsim::serving {

RequestPath::RequestPath(core::Simulator& sim, RequestSink& engine, double latency_s)
    : sim_(sim), engine_(engine), latency_(core::to_ticks(latency_s)) {
  if (!(latency_s >= 0)) throw core::Error("request path latency must be >= 0 s");
}

void RequestPath::submit(const Request& r, CompletionFn done) {
  if (latency_ == 0) {
    engine_.submit(r, std::move(done));
    return;
  }
  Request sent = r;
  if (sent.sent_s < 0) sent.sent_s = sim_.now_s();
  sim_.after(latency_, [this, sent, done = std::move(done)]() mutable { engine_.submit(sent, std::move(done)); });
}

}  // namespace agentsim::serving
