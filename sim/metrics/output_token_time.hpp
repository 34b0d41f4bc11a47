#pragma once
// When a request's k-th output token was produced, estimated from its record: the
// record holds only the first and last token times, so the tokens between are taken
// at the request's own mean decode pace,
//   t_k = first_token_s + (k - 1) x (last_token_s - first_token_s) / (output_tokens - 1),
// exact when the pace is constant (plain decoding at a steady batch) and an
// interpolation otherwise (speculative steps emit several tokens at once, the batch
// changes). A request with at most k output tokens gives its last token's time.
#include "sim/metrics/records.hpp"

namespace agentsim::metrics {

// `k` counts from 1 (k = 1: first_token_s); k < 1 is a core::Error.
double output_token_time_s(const RequestRecord& r, long long k);

}  // namespace agentsim::metrics
