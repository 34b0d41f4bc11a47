#pragma once
// Timing of a run of decode-only steps whose batch composition does not change:
// step i of the segment lasts A + B*i ticks (step time is affine in total context,
// and every step adds one token to each sequence). Stepping one by one and
// fast-forwarding k steps in closed form both use these numbers, so they agree exactly.
#include <cstdint>

#include "sim/core/time.hpp"

namespace agentsim::serving {

struct DecodeSegment {
  core::Ticks a = 0;        // ticks of the segment's first step
  core::Ticks b = 0;        // added ticks per later step
  long long next_step = 0;  // index of the next step within the segment

  core::Ticks step_ticks(long long i) const { return a + b * i; }
  // Ticks of steps [i0, i0 + k).
  core::Ticks run_ticks(long long i0, long long k) const { return k * a + b * (k * i0 + k * (k - 1) / 2); }
  // Smallest j in [1, k] with run_ticks(i0, j) >= dt (k when none): the step of a run of
  // k steps from i0 that is in progress (or ends exactly) dt ticks after the run began.
  long long steps_covering(long long i0, long long k, core::Ticks dt) const;
};

}  // namespace agentsim::serving
