#pragma once
// Bisection on integer concurrency for a predicate that is true up to some point and false after
// it (e.g. "the SLO holds at x agents").
#include <algorithm>
#include <functional>

namespace agentsim::exp {

// Narrows a known bracket (pred(good) true, pred(bad) false, good < bad) until bad - good is at
// most max(1, fraction x good); returns the final good. fraction 0 finds the exact boundary.
inline long long narrow_bracket(long long good, long long bad, double fraction,
                                const std::function<bool(long long)>& pred) {
  auto width = [&] { return std::max<long long>(1, static_cast<long long>(fraction * static_cast<double>(good))); };
  while (bad - good > width()) {
    const long long mid = good + (bad - good) / 2;
    (pred(mid) ? good : bad) = mid;
  }
  return good;
}

// Largest integer x in [lo, hi] with pred(x) true; lo - 1 when pred(lo) is false.
// Calls pred O(log(hi - lo)) times, probing both ends first.
inline long long bisect_max_true(long long lo, long long hi, const std::function<bool(long long)>& pred) {
  if (lo > hi || !pred(lo)) return lo - 1;
  if (pred(hi)) return hi;
  return narrow_bracket(lo, hi, 0.0, pred);
}

}  // namespace agentsim::exp
