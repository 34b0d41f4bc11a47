#pragma once
// Percentile with linear interpolation between closest ranks (numpy's default).
#include <vector>

namespace agentsim::metrics {

// q in [0, 100]; returns NaN for an empty sample. Sorts `values`.
double percentile(std::vector<double>& values, double q);

}  // namespace agentsim::metrics
