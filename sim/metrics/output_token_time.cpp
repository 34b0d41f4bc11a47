#include "sim/metrics/output_token_time.hpp"

#include <string>

#include "sim/core/error.hpp"

namespace agentsim::metrics {

double output_token_time_s(const RequestRecord& r, long long k) {
  if (k < 1) throw core::Error("output token index must be at least 1, got " + std::to_string(k));
  if (k == 1) return r.first_token_s;
  if (k >= r.output_tokens) return r.last_token_s;
  const double pace_s = (r.last_token_s - r.first_token_s) / static_cast<double>(r.output_tokens - 1);
  return r.first_token_s + static_cast<double>(k - 1) * pace_s;
}

}  // namespace agentsim::metrics
