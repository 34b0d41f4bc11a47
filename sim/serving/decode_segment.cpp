#include "sim/serving/decode_segment.hpp"

#include <algorithm>
#include <cmath>

#include "sim/serving/step_coster.hpp"

namespace agentsim::serving {

double DecodeSegment::price(long long i) {
  scratch_.decodes.assign(base_->decodes.begin(), base_->decodes.end());
  for (DecodeItem& d : scratch_.decodes) d.context_tokens += i;
  ++evaluations_;
  return coster_->totals(scratch_).total_s;
}

void DecodeSegment::plan(const StepCoster& coster, const StepBatch& base, long long k) {
  coster_ = &coster;
  base_ = &base;
  scratch_.prefills.clear();
  pieces_.clear();
  evaluations_ = 1;
  first_ = coster.totals(base);
  next_step = 0;
  k = std::max(1LL, k);
  const double t_last_s = k > 1 ? price(k - 1) : first_.total_s;
  if (k > 1) fit(0, first_.total_s, k - 1, t_last_s);
  pieces_.push_back(Piece{k - 1, t_last_s, 0.0});  // the last step at its exact price
  end_ticks_.assign(static_cast<std::size_t>(k) + 1, 0);
  for (std::size_t p = 0; p < pieces_.size(); ++p) {
    const Piece& x = pieces_[p];
    const long long stop = p + 1 < pieces_.size() ? pieces_[p + 1].i0 : k;
    for (long long i = x.i0; i < stop; ++i) {
      const double t_s = x.t0_s + x.slope_s * static_cast<double>(i - x.i0);
      end_ticks_[static_cast<std::size_t>(i) + 1] = end_ticks_[static_cast<std::size_t>(i)] + core::to_ticks(t_s);
    }
  }
  base_ = nullptr;
}

// Pieces for steps [lo, hi) given the exact prices of lo and hi. The step cost is a
// sum of maxima of affine functions of the step index (convex), so one interior step
// on the chord makes the whole piece affine; three are checked (the second, middle
// and next-to-last step), and a failed piece is halved.
void DecodeSegment::fit(long long lo, double t_lo, long long hi, double t_hi) {
  if (hi - lo <= kExactPieceSteps) {
    pieces_.push_back(Piece{lo, t_lo, 0.0});
    for (long long i = lo + 1; i < hi; ++i) pieces_.push_back(Piece{i, price(i), 0.0});
    return;
  }
  const double slope_s = (t_hi - t_lo) / static_cast<double>(hi - lo);
  const double tol_s = kRelTolerance * std::max(std::abs(t_lo), std::abs(t_hi));
  const long long mid = lo + (hi - lo) / 2;
  const double t_mid = price(mid);
  auto on_chord = [&](long long i, double t_s) {
    return std::abs(t_s - (t_lo + slope_s * static_cast<double>(i - lo))) <= tol_s;
  };
  if (on_chord(mid, t_mid) && on_chord(lo + 1, price(lo + 1)) && on_chord(hi - 1, price(hi - 1))) {
    pieces_.push_back(Piece{lo, t_lo, slope_s});
    return;
  }
  fit(lo, t_lo, mid, t_mid);
  fit(mid, t_mid, hi, t_hi);
}

long long DecodeSegment::steps_covering(long long i0, long long k, core::Ticks dt) const {
  long long lo = 1, hi = k;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (run_ticks(i0, mid) >= dt) hi = mid; else lo = mid + 1;
  }
  return lo;
}

}  // namespace agentsim::serving
