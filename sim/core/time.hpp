#pragma once
// Simulated time. The event clock counts integer ticks of one nanosecond; every
// interface outside sim/core speaks SI seconds and converts here, once.
#include <cstdint>
#include <limits>

#include "sim/core/round.hpp"

namespace agentsim::core {

using Ticks = std::int64_t;  // nanoseconds since simulation start

inline constexpr double kSecondsPerTick = 1e-9;
inline constexpr Ticks kTickMax = std::numeric_limits<Ticks>::max();

// Seconds to ticks, rounded to nearest; negative or NaN input is a caller bug
// and clamps to 0, +inf clamps to kTickMax.
inline Ticks to_ticks(double seconds) {
  if (!(seconds > 0.0)) return 0;
  const double q = seconds / kSecondsPerTick;
  if (q >= static_cast<double>(kTickMax)) return kTickMax;
  return core::llround(q);
}

inline double to_seconds(Ticks t) { return static_cast<double>(t) * kSecondsPerTick; }

}  // namespace agentsim::core
