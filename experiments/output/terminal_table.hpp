#pragma once
// The terminal sink: a fixed-width table of the runs.
#include <string>
#include <vector>

#include "experiments/run/runner.hpp"

namespace agentsim::exp {

std::string terminal_table(const std::vector<RunResult>& runs);

}  // namespace agentsim::exp
