#pragma once
// The summary.csv sink: one row per run (written with core::CsvWriter). It formats; it computes nothing.
#include <string>
#include <vector>

#include "experiments/run/runner.hpp"

namespace agentsim::exp {

std::string summary_csv(const std::vector<RunResult>& runs);

}  // namespace agentsim::exp
