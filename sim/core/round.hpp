#pragma once
// std::llround without the libm call on the hot paths (baseline x86-64 has no
// rounding instruction): the same result for every finite input, since
// x - trunc(x) is exact for |x| < 2^52 and larger doubles are already integers.
#include <cmath>

namespace agentsim::core {

inline long long llround(double x) {
  constexpr double kTwo52 = 4503599627370496.0;
  if (x >= 0 && x < kTwo52) {
    const auto whole = static_cast<long long>(x);
    return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
  }
  if (x < 0 && x > -kTwo52) {
    const auto whole = static_cast<long long>(x);
    return whole - (static_cast<double>(whole) - x >= 0.5 ? 1 : 0);
  }
  return std::llround(x);
}

}  // namespace agentsim::core
