#pragma once
// Spearman's rank correlation: the Pearson correlation of the two samples' ranks, tied values
// sharing their mean rank. The search logs it between the analytic bound and the simulation.
#include <vector>

namespace agentsim::exp {

// 1-based ranks of `v`, largest first; ties get the mean of the ranks they span.
std::vector<double> descending_ranks(const std::vector<double>& v);
// In [-1, 1]; NaN when fewer than two pairs or either sample is constant. x and y pair by index.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace agentsim::exp
