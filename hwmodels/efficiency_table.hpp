#pragma once
// Achieved fraction of a datasheet peak as a function of the work's size.
// Calibration will supply measured tables; until then ConstantEfficiency
// returns documented constants.
#include "hwmodels/dtype.hpp"
#include "hwmodels/efficiency.hpp"

namespace agentsim::hw {

class EfficiencyTable {
 public:
  virtual ~EfficiencyTable() = default;
  // Achieved / peak FLOP/s for `flops` of math in `math`, in (0, 1].
  virtual double compute(DType math, double flops) const = 0;
  // Achieved / peak HBM bandwidth for a transfer of `bytes`, in (0, 1].
  virtual double memory(double bytes) const = 0;
};

// The same fractions for every size.
class ConstantEfficiency final : public EfficiencyTable {
 public:
  explicit ConstantEfficiency(Efficiency e = {}) : e_(e) {}
  double compute(DType, double) const override { return e_.compute; }
  double memory(double) const override { return e_.memory; }

 private:
  Efficiency e_;
};

}  // namespace agentsim::hw
