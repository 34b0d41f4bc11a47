#pragma once
// Largest integer x in [lo, hi] with pred(x) true, for a predicate that is true
// up to some point and false after it (e.g. "the SLO holds at x agents").
// Returns lo - 1 when pred(lo) is false. Calls pred O(log(hi - lo)) times.
#include <functional>

namespace agentsim::exp {

inline long long bisect_max_true(long long lo, long long hi, const std::function<bool(long long)>& pred) {
  if (lo > hi || !pred(lo)) return lo - 1;
  long long good = lo, bad = hi + 1;
  if (pred(hi)) return hi;
  bad = hi;
  while (bad - good > 1) {
    const long long mid = good + (bad - good) / 2;
    (pred(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace agentsim::exp
