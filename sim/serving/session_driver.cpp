#include "sim/serving/session_driver.hpp"

#include <algorithm>

namespace agentsim::serving {

Request turn_request(const wl::Trace& trace, wl::TurnRef ref, int agent, long long max_context_tokens,
                     bool& truncated) {
  const wl::Turn& t = trace.sessions[static_cast<std::size_t>(ref.session)].turns[static_cast<std::size_t>(ref.turn)];
  Request r;
  r.trace = &trace;
  r.turn = ref;
  r.agent = agent;
  r.output_tokens = std::max<long long>(1, t.output_tokens);
  r.input_tokens = std::max<long long>(1, t.input_tokens);
  truncated = false;
  if (max_context_tokens > 0 && r.input_tokens + r.output_tokens > max_context_tokens) {
    r.output_tokens = std::min(r.output_tokens, max_context_tokens / 2);
    r.input_tokens = max_context_tokens - r.output_tokens;
    truncated = true;
  }
  return r;
}

}  // namespace agentsim::serving
