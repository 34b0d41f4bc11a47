#pragma once
// Achieved fraction of a datasheet peak. Until calibration supplies measured
// tables these are documented constants from the experiment or catalog.
namespace agentsim::hw {

struct Efficiency {
  double compute = 1.0;  // achieved / peak FLOP/s, in (0, 1]
  double memory = 1.0;   // achieved / peak HBM bandwidth, in (0, 1]
  double network = 1.0;  // achieved / peak scale-up link bandwidth, in (0, 1]
};

}  // namespace agentsim::hw
