#pragma once
// Speculative decoding / multi-token prediction: k draft tokens per sequence,
// each accepted with a per-position probability given the earlier ones were.
// A step verifies k + 1 tokens per decoding sequence and emits the accepted
// drafts plus one token of its own.
#include <utility>
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::serving {

struct SpecDecodeOptions {
  int draft_tokens = 0;            // k (0 = off)
  std::vector<double> acceptance;  // P(draft i accepted | drafts < i accepted), size k, each in [0, 1]
  // Draft cost per draft token as layers of the target model (MTP module: 1).
  double draft_layers = 1.0;
  // Drafts by load, as engines shorten or stop speculating when busy: (running sequences at or
  // above, drafts), thresholds ascending, drafts in 0..k; below the first threshold all k. Empty:
  // k at every load.
  std::vector<std::pair<int, int>> schedule;

  bool enabled() const { return draft_tokens > 0; }
  // The drafts a step formed with `running` sequences on the replica runs (schedule).
  int drafts_for(long long running) const;
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

// The drafter running `k` drafts: its first k positions (k in 0..its own), speculation off
// (draft_tokens 0) at 0; without a schedule (what a step of that many drafts runs).
SpecDecodeOptions with_drafts(const SpecDecodeOptions& s, int k);

// Drafts of one step that the target accepts: position i is tried with probability
// acceptance[i] once every earlier one was accepted; the first rejection ends the draw.
// Uses one uniform per position tried, so a sequence's stream alone fixes its count.
int draw_accepted(core::RngStream& rng, const SpecDecodeOptions& s);

// Throws core::Error unless acceptance has k entries in [0, 1], k <= 16 and the schedule's
// thresholds ascend from 1 with drafts in 0..k.
void check_spec_decode(const SpecDecodeOptions& s);

}  // namespace agentsim::serving
