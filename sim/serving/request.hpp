#pragma once
// One turn in flight on the serving system.
#include <functional>

#include "sim/metrics/records.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::serving {

struct Request {
  int agent = -1;
  long long input_tokens = 0;
  long long output_tokens = 0;  // >= 1
  // The turn this request replays, for prefix-cache keys (Trace::block_ids); null when synthetic.
  const wl::Trace* trace = nullptr;
  wl::TurnRef turn;
  // When the client sent it, if that was before it reached the engine (RequestPath); < 0: on
  // arrival. The record's arrival_s, from which its TTFT counts.
  double sent_s = -1;
  // A run starting mid-session (closed-loop random_start): the part of the prompt the agent's
  // earlier turns, not replayed, would have left in the prefix cache (its previous prompt), which
  // the replica caches before admitting it, as in the steady state; 0 otherwise.
  long long warm_prefix_tokens = 0;
};

// Called once when a request finished (or was rejected), with its record.
using CompletionFn = std::function<void(const metrics::RequestRecord&)>;

}  // namespace agentsim::serving
