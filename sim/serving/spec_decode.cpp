#include "sim/serving/spec_decode.hpp"

#include <string>

#include "sim/core/error.hpp"

namespace agentsim::serving {

double SpecDecodeOptions::expected_tokens_per_step() const {
  double expected = 1.0, chain = 1.0;
  for (int i = 0; i < draft_tokens && i < static_cast<int>(acceptance.size()); ++i) {
    chain *= acceptance[static_cast<std::size_t>(i)];
    expected += chain;
  }
  return expected;
}

int draw_accepted(core::RngStream& rng, const SpecDecodeOptions& s) {
  int accepted = 0;
  while (accepted < s.draft_tokens && rng.uniform() < s.acceptance[static_cast<std::size_t>(accepted)]) ++accepted;
  return accepted;
}

void check_spec_decode(const SpecDecodeOptions& s) {
  if (s.draft_tokens < 0 || s.draft_tokens > 16) throw core::Error("speculative decoding: draft tokens must be in 0..16");
  if (static_cast<int>(s.acceptance.size()) != s.draft_tokens) {
    throw core::Error("speculative decoding: " + std::to_string(s.draft_tokens) + " draft tokens need " +
                      std::to_string(s.draft_tokens) + " acceptance probabilities, got " +
                      std::to_string(s.acceptance.size()));
  }
  for (double p : s.acceptance) {
    if (!(p >= 0 && p <= 1)) throw core::Error("speculative decoding: acceptance probabilities must be in [0, 1]");
  }
  if (!(s.draft_layers >= 0)) throw core::Error("speculative decoding: draft_layers must be >= 0");
}

}  // namespace agentsim::serving
