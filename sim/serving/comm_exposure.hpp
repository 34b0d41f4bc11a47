#pragma once
// How much of a step's communication stays exposed under an overlap mode: the one
// formula the step-cost engine (step_coster.cpp) applies.
#include <algorithm>

#include "sim/serving/step_cost.hpp"

namespace agentsim::serving {

struct CommExposure {
  double alpha_s = 0, beta_s = 0;  // exposed latency and transfer time of one micro-batch
};

// `roof_s`: op time the communication can hide behind; `alpha_s`/`beta_s`: latency and
// transfer time of the collectives; `layers`: transformer layers on the device; `tbo`:
// two-batch overlap applies (at least two sequences).
inline CommExposure comm_exposure(Overlap overlap, bool tbo, double roof_s, double alpha_s, double beta_s,
                                  double layers) {
  CommExposure e{alpha_s, beta_s};
  if (overlap == Overlap::kCommCompute) {
    e.beta_s = std::max(0.0, beta_s - roof_s);
  } else if (tbo) {
    // Each half's collectives run while the other half computes; the first
    // layer's communication has nothing to hide behind.
    const double comm = alpha_s + beta_s;
    const double exposed = std::max(comm - roof_s, comm / std::max(1.0, 2.0 * layers));
    const double share = comm > 0 ? exposed / comm : 0;
    e.alpha_s = alpha_s * share;
    e.beta_s = beta_s * share;
  }
  return e;
}

}  // namespace agentsim::serving
