#pragma once
// Isotonic regression (pool-adjacent-violators): the weighted least-squares
// non-decreasing sequence closest to `values`.
#include <vector>

namespace agentsim::calib {

// `weights` must be > 0 and as long as `values`.
std::vector<double> isotonic_non_decreasing(const std::vector<double>& values, const std::vector<double>& weights);

}  // namespace agentsim::calib
