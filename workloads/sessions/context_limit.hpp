#pragma once
// A context limit applied to a replayed trace the way an agent harness applies
// it: a turn whose prompt and answer would not fit keeps its session's first
// prompt and its newest turns, the oldest dropped, and its cached prefix breaks
// after the first prompt; later turns of the session carry the drop.
#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

// Cuts every turn over `max_context_tokens` (prompt + answer; answers over half the limit are
// cut to half) to `keep_fraction` (0, 1] of the limit and marks it `truncated` and a prefix
// break; block links stay consistent. Returns the number of turns truncated.
long long apply_context_limit(Trace& trace, long long max_context_tokens, double keep_fraction);

// The shortest prompt of the trace, in tokens (0 for an empty trace).
long long shortest_prompt_tokens(const Trace& trace);

}  // namespace agentsim::wl
