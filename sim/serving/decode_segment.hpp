#pragma once
// Timing of a run of decode-only steps whose batch composition does not change:
// step i of the segment prices the base batch with every context + i. That cost
// is piecewise affine in i (each op is a max of affine terms), so plan() splits
// the steps into pieces, each checked against exact pricing at its ends and three
// interior points (or, where the end prices' probes show the cost is affine between
// them, StepCoster::affine_between, at its ends only), and prices every step from
// its piece (docs/serving.md).
#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/serving/price_memo.hpp"
#include "sim/serving/step_batch.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/serving/step_coster.hpp"

namespace agentsim::serving {

// A step's time by part, as a StepRecord carries it.
struct StepParts {
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
};

class DecodeSegment {
 public:
  // A piece's step time is checked to this fraction of the exact price (well above
  // the pricing's rounding noise, ~1e-15).
  static constexpr double kRelTolerance = 1e-12;
  // Pieces this short are priced step by step.
  static constexpr long long kExactPieceSteps = 4;

  // Prices steps [0, k) of `base` (k >= 1): every step's ticks and their running sum.
  void plan(const StepCoster& coster, const StepBatch& base, long long k);

  long long steps() const { return static_cast<long long>(end_ticks_.size()) - 1; }
  long long next_step = 0;  // index of the next step within the segment
  long long evaluations() const { return evaluations_; }  // exact step prices plan() ran
  std::size_t pieces() const { return pieces_.size(); }

  core::Ticks step_ticks(long long i) const { return end_ticks_[i + 1] - end_ticks_[i]; }
  // Ticks of steps [i0, i0 + k).
  core::Ticks run_ticks(long long i0, long long k) const { return end_ticks_[i0 + k] - end_ticks_[i0]; }
  // Smallest j in [1, k] with run_ticks(i0, j) >= dt (k when none): the step of a run of
  // k steps from i0 that is in progress (or ends exactly) dt ticks after the run began.
  long long steps_covering(long long i0, long long k, core::Ticks dt) const;
  // Mean parts of steps [i0, i0 + k), each interpolated within its piece.
  StepParts mean_parts(long long i0, long long k) const;

 private:
  struct Piece {
    long long i0 = 0;    // first step of the piece
    double t0_s = 0;     // exact price of step i0
    double slope_s = 0;  // seconds added per step
    StepParts parts, parts_slope;  // exact parts of step i0; per step to the next piece
  };
  // `probe`: filled for StepCoster::affine_between, or null.
  StepCost price(long long i, AffineProbe* probe = nullptr);
  // `depth`: of the recursion, for the probe of its middle step (probes_[2 + depth]).
  void fit(long long lo, const StepCost& c_lo, const AffineProbe& probe_lo, long long hi, const StepCost& c_hi,
           const AffineProbe& probe_hi, std::size_t depth);
  void add_piece(long long i0, const StepCost& c, double slope_s);

  const StepCoster* coster_ = nullptr;
  const StepBatch* base_ = nullptr;
  std::vector<Piece> pieces_;
  std::vector<core::Ticks> end_ticks_;  // [0] = 0, [i + 1] = ticks of steps [0, i]
  long long evaluations_ = 0;
  PriceMemo memo_;  // across plans (of one coster: another's drops it): most ops' inputs repeat
  std::vector<AffineProbe> probes_;  // the first and last step's, then one per recursion depth of fit()
};

}  // namespace agentsim::serving
