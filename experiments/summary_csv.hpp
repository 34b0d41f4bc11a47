#pragma once
// The summary.csv sink: one row per run. It formats; it computes nothing.
#include <string>
#include <vector>

#include "experiments/runner.hpp"

namespace agentsim::exp {

// A CSV field: quoted (with doubled quotes) only when it holds a comma, quote or newline.
std::string csv_text(const std::string& s);

std::string summary_csv(const std::vector<RunResult>& runs);

}  // namespace agentsim::exp
