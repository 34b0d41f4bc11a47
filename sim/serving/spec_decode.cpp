#include "sim/serving/spec_decode.hpp"

#include <algorithm>
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

SpecDecodeOptions with_tokens_per_step(const SpecDecodeOptions& s, double tokens_per_step) {
  SpecDecodeOptions out = s;
  const auto scaled = [&](double f) {
    for (std::size_t i = 0; i < out.acceptance.size(); ++i) out.acceptance[i] = std::min(1.0, f * s.acceptance[i]);
    return out.expected_tokens_per_step();
  };
  double lo = 0.0, hi = 1.0;
  for (double p : s.acceptance) {
    if (p > 0) hi = std::max(hi, 1.0 / p);  // every position accepted at hi (or zero on the card)
  }
  const double target = std::clamp(tokens_per_step, 1.0, scaled(hi));
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {  // tokens per step rise monotonically with f
    const double mid = (lo + hi) / 2;
    (scaled(mid) < target ? lo : hi) = mid;
  }
  scaled(target <= 1.0 ? 0.0 : hi);
  return out;
}

SpecDecodeOptions first_drafts(const SpecDecodeOptions& s, int k) {
  SpecDecodeOptions out = s;
  if (k <= 0 || k >= s.draft_tokens) return out;
  out.draft_tokens = k;
  out.acceptance.resize(static_cast<std::size_t>(k));
  return out;
}

int SpecDecodeOptions::drafts_for(long long running) const {
  int k = draft_tokens;
  for (const auto& [from, drafts] : schedule) {
    if (running < from) break;
    k = drafts;
  }
  return std::clamp(k, 0, draft_tokens);
}

SpecDecodeOptions with_drafts(const SpecDecodeOptions& s, int k) {
  SpecDecodeOptions out;
  if (k > 0) out = first_drafts(s, std::min(k, s.draft_tokens));
  out.draft_layers = s.draft_layers;
  out.schedule.clear();
  return out;
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
  int last = 0;
  for (const auto& [from, drafts] : s.schedule) {
    if (from <= last) throw core::Error("speculative decoding: the draft schedule's thresholds must ascend from 1");
    if (drafts < 0 || drafts > s.draft_tokens) {
      throw core::Error("speculative decoding: the draft schedule's drafts must be in 0.." + std::to_string(s.draft_tokens));
    }
    last = from;
  }
}

}  // namespace agentsim::serving
