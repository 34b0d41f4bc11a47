#include "sim/serving/open_loop_driver.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::serving {

OpenLoopDriver::OpenLoopDriver(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace,
                               OpenLoopOptions opt)
    : sim_(sim), replica_(sink), trace_(trace), pool_(trace.sessions), opt_(opt) {
  if (pool_.empty()) throw core::Error("open-loop replay needs at least one session");
  if (!(opt_.time_scale > 0)) throw core::Error("open-loop time scale must be positive");
}

void OpenLoopDriver::start() {
  for (std::size_t s = 0; s < pool_.size(); ++s) {
    const auto& session = pool_[s];
    for (std::size_t k = 0; k < session.turns.size(); ++k) {
      const double at_s = (session.start_s + std::max(0.0, session.turns[k].t_s)) * opt_.time_scale;
      sim_.after(core::to_ticks(at_s), [this, s, k] {
        bool truncated = false;
        const Request r = turn_request(trace_, wl::TurnRef{static_cast<std::int32_t>(s), static_cast<std::int32_t>(k)},
                                       static_cast<int>(s), opt_.max_context_tokens, truncated);
        truncated_ += truncated ? 1 : 0;
        ++sent_;
        replica_.submit(r, [](const metrics::RequestRecord&) {});
      });
    }
  }
}

}  // namespace agentsim::serving
