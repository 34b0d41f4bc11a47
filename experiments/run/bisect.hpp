#pragma once
// Bisection on integer concurrency for a predicate that is true up to some point and false after
// it (e.g. "the SLO holds at x agents").
#include <algorithm>
#include <cmath>
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

// Narrows a known bracket on a margin that is >= 0 where the target is met and < 0 where it is not
// (m_good >= 0 at good, m_bad < 0 at bad), until bad - good <= max(1, fraction x good). Each probe
// aims at the bracket's linear interpolation of the margin, alternately half a tolerance below and
// above it, so a near-linear curve closes in two or three probes; after two probes in a row on one
// side (the curve is bent, and interpolation keeps landing beside the root) the next is the
// midpoint. A probe stays a tolerance inside each end (one beside an end would learn what the end
// says), so a root next to an end closes on the next probe. Stops after `max_probes` probes (a
// noisy margin near a cliff need not close). Returns the final good.
inline long long narrow_bracket_interpolated(long long good, double m_good, long long bad, double m_bad,
                                             double fraction, const std::function<double(long long)>& margin,
                                             int max_probes = 64) {
  auto width = [&] { return std::max<long long>(1, static_cast<long long>(fraction * static_cast<double>(good))); };
  int side = 0, repeats = 0, probes = 0;
  while (bad - good > width() && probes < max_probes) {
    const double t = m_good - m_bad > 0 ? m_good / (m_good - m_bad) : 0.5;
    const double estimate = static_cast<double>(good) + t * static_cast<double>(bad - good);
    const long long w = width();
    const double half = 0.5 * static_cast<double>(w);
    long long x = static_cast<long long>(std::llround(probes % 2 == 0 ? estimate - half : estimate + half));
    if (repeats >= 2 || bad - good <= 2 * w) {
      x = good + (bad - good) / 2;
    } else {
      x = std::clamp(x, good + w, bad - w);
    }
    x = std::clamp(x, good + 1, bad - 1);
    const double m = margin(x);
    const int now = m >= 0 ? 1 : -1;
    (now > 0 ? good : bad) = x;
    (now > 0 ? m_good : m_bad) = m;
    repeats = now == side ? repeats + 1 : 1;
    side = now;
    ++probes;
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
