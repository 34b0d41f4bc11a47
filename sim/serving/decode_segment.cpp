#include "sim/serving/decode_segment.hpp"

namespace agentsim::serving {

long long DecodeSegment::steps_covering(long long i0, long long k, core::Ticks dt) const {
  long long lo = 1, hi = k;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (run_ticks(i0, mid) >= dt) hi = mid; else lo = mid + 1;
  }
  return lo;
}

}  // namespace agentsim::serving
