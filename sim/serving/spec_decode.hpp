#pragma once
// Speculative decoding / multi-token prediction: k draft tokens per sequence,
// each accepted with a per-position probability given the earlier ones were.
// A step verifies k + 1 tokens per decoding sequence and emits the accepted
// drafts plus one token of its own.
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::serving {

struct SpecDecodeOptions {
  int draft_tokens = 0;            // k (0 = off)
  std::vector<double> acceptance;  // P(draft i accepted | drafts < i accepted), size k, each in [0, 1]
  // Draft cost per draft token as layers of the target model (MTP module: 1).
  double draft_layers = 1.0;

  bool enabled() const { return draft_tokens > 0; }
  // 1 + sum_i prod_{j<=i} acceptance[j]: tokens emitted per sequence per step.
  double expected_tokens_per_step() const;
};

// The same drafter with its per-position acceptance scaled by one factor s (each
// min(1, s p_i)) so that expected_tokens_per_step() = `tokens_per_step`, clamped to
// [1, 1 + k]: a dataset whose drafts are accepted more or less often than the card's.
SpecDecodeOptions with_tokens_per_step(const SpecDecodeOptions& s, double tokens_per_step);

// The same drafter drafting only its first `k` positions (a server launched with fewer draft
// tokens than the drafter has); k <= 0 or k >= its own: unchanged.
SpecDecodeOptions first_drafts(const SpecDecodeOptions& s, int k);

// Drafts of one step that the target accepts: position i is tried with probability
// acceptance[i] once every earlier one was accepted; the first rejection ends the draw.
// Uses one uniform per position tried, so a sequence's stream alone fixes its count.
int draw_accepted(core::RngStream& rng, const SpecDecodeOptions& s);

// Throws core::Error unless acceptance has k entries in [0, 1] and k <= 16.
void check_spec_decode(const SpecDecodeOptions& s);

}  // namespace agentsim::serving
