#include "sim/serving/decode_segment.hpp"

#include <algorithm>
#include <cmath>

#include "sim/serving/step_coster.hpp"

namespace agentsim::serving {

namespace {
StepParts parts_of(const StepCost& c) {
  return StepParts{c.compute_s, c.memory_s, c.comm_latency_s + c.comm_transfer_s, c.overhead_s};
}
}  // namespace

StepCost DecodeSegment::price(long long i, AffineProbe* probe) {
  ++evaluations_;
  return coster_->price_shifted(*base_, i, &memo_, probe);
}

void DecodeSegment::add_piece(long long i0, const StepCost& c, double slope_s) {
  pieces_.push_back(Piece{i0, c.total_s, slope_s, parts_of(c), StepParts{}});
}

void DecodeSegment::plan(const StepCoster& coster, const StepBatch& base, long long k) {
  coster_ = &coster;
  base_ = &base;
  pieces_.clear();
  evaluations_ = 0;
  next_step = 0;
  k = std::max(1LL, k);
  // Probes stay where they are during the recursion (it halves k <= 2^63 at most 64 times).
  if (probes_.size() < 2 + 64) probes_.resize(2 + 64);
  const StepCost first = price(0, &probes_[0]);
  const StepCost last = k > 1 ? price(k - 1, &probes_[1]) : first;
  if (k > 1) fit(0, first, probes_[0], k - 1, last, probes_[1], 0);
  add_piece(k - 1, last, 0.0);  // the last step at its exact price

  // The parts run straight from one piece's first step to the next's.
  for (std::size_t p = 0; p + 1 < pieces_.size(); ++p) {
    Piece& x = pieces_[p];
    const Piece& y = pieces_[p + 1];
    const double n = static_cast<double>(y.i0 - x.i0);
    x.parts_slope = StepParts{(y.parts.compute_s - x.parts.compute_s) / n, (y.parts.memory_s - x.parts.memory_s) / n,
                              (y.parts.comm_s - x.parts.comm_s) / n, (y.parts.overhead_s - x.parts.overhead_s) / n};
  }

  // Ticks: the piece's line, or the exact price where the line lies within its error
  // bound (2 x tolerance, convex cost) of a half tick, so rounding cannot differ.
  end_ticks_.assign(static_cast<std::size_t>(k) + 1, 0);
  for (std::size_t p = 0; p < pieces_.size(); ++p) {
    const Piece& x = pieces_[p];
    const long long stop = p + 1 < pieces_.size() ? pieces_[p + 1].i0 : k;
    for (long long i = x.i0; i < stop; ++i) {
      double t_s = x.t0_s + x.slope_s * static_cast<double>(i - x.i0);
      const double ticks = t_s / core::kSecondsPerTick;  // > 0, far below 2^63
      const double guard = 4.0 * kRelTolerance * ticks + 1e-6;
      const double whole = static_cast<double>(static_cast<long long>(ticks));  // floor, without the libm call
      if (i > x.i0 && std::abs(ticks - whole - 0.5) <= guard) t_s = price(i).total_s;
      end_ticks_[static_cast<std::size_t>(i) + 1] = end_ticks_[static_cast<std::size_t>(i)] + core::to_ticks(t_s);
    }
  }
  base_ = nullptr;
}

// Pieces for steps [lo, hi) given the exact prices of lo and hi. The step cost is a
// sum of maxima of affine functions of the step index (convex), so one interior step
// on the chord makes the whole piece affine; three are checked (the second, middle
// and next-to-last step), and a failed piece is halved.
void DecodeSegment::fit(long long lo, const StepCost& c_lo, const AffineProbe& probe_lo, long long hi,
                        const StepCost& c_hi, const AffineProbe& probe_hi, std::size_t depth) {
  if (hi - lo <= kExactPieceSteps) {
    add_piece(lo, c_lo, 0.0);
    for (long long i = lo + 1; i < hi; ++i) add_piece(i, price(i), 0.0);
    return;
  }
  // Affine between the ends (to rounding, far inside the tolerance): the checks below would
  // pass, so the piece is theirs without pricing them.
  if (coster_->affine_between(*base_, lo, hi, probe_lo, probe_hi)) {
    add_piece(lo, c_lo, (c_hi.total_s - c_lo.total_s) / static_cast<double>(hi - lo));
    return;
  }
  const double tol_s = kRelTolerance * std::max(std::abs(c_lo.total_s), std::abs(c_hi.total_s));
  const StepParts p_lo = parts_of(c_lo), p_hi = parts_of(c_hi);
  // The step time and its parts (the record's) all on their chords.
  auto on_chord = [&](long long i, const StepCost& c) {
    const double f = static_cast<double>(i - lo) / static_cast<double>(hi - lo);
    auto near = [&](double x, double a, double b) { return std::abs(x - (a + (b - a) * f)) <= tol_s; };
    const StepParts p = parts_of(c);
    return near(c.total_s, c_lo.total_s, c_hi.total_s) && near(p.compute_s, p_lo.compute_s, p_hi.compute_s) &&
           near(p.memory_s, p_lo.memory_s, p_hi.memory_s) && near(p.comm_s, p_lo.comm_s, p_hi.comm_s) &&
           near(p.overhead_s, p_lo.overhead_s, p_hi.overhead_s);
  };
  const long long mid = lo + (hi - lo) / 2;
  AffineProbe& probe_mid = probes_[2 + depth];
  const StepCost c_mid = price(mid, &probe_mid);
  if (on_chord(mid, c_mid) && on_chord(lo + 1, price(lo + 1)) && on_chord(hi - 1, price(hi - 1))) {
    add_piece(lo, c_lo, (c_hi.total_s - c_lo.total_s) / static_cast<double>(hi - lo));
    return;
  }
  fit(lo, c_lo, probe_lo, mid, c_mid, probe_mid, depth + 1);
  fit(mid, c_mid, probe_mid, hi, c_hi, probe_hi, depth + 1);
}

long long DecodeSegment::steps_covering(long long i0, long long k, core::Ticks dt) const {
  long long lo = 1, hi = k;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (run_ticks(i0, mid) >= dt) hi = mid; else lo = mid + 1;
  }
  return lo;
}

StepParts DecodeSegment::mean_parts(long long i0, long long k) const {
  StepParts sum;
  auto p = std::upper_bound(pieces_.begin(), pieces_.end(), i0, [](long long i, const Piece& x) { return i < x.i0; });
  --p;
  for (long long i = i0; i < i0 + k; ++i) {
    while (p + 1 != pieces_.end() && (p + 1)->i0 <= i) ++p;
    const double d = static_cast<double>(i - p->i0);
    sum.compute_s += p->parts.compute_s + p->parts_slope.compute_s * d;
    sum.memory_s += p->parts.memory_s + p->parts_slope.memory_s * d;
    sum.comm_s += p->parts.comm_s + p->parts_slope.comm_s * d;
    sum.overhead_s += p->parts.overhead_s + p->parts_slope.overhead_s * d;
  }
  const double n = static_cast<double>(k);
  return StepParts{sum.compute_s / n, sum.memory_s / n, sum.comm_s / n, sum.overhead_s / n};
}

}  // namespace agentsim::serving
