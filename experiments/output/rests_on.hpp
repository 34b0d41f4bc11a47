#pragma once
// The report's "what this rests on" section: the efficiencies (constants or calibration
// profiles) the run used, the catalog lines marked `assumed` for the entries it used,
// and the measured validation points for its regime, if any. Reads the catalog files under `root`.
#include <string>

#include "experiments/config/experiment.hpp"

namespace agentsim::exp {

std::string rests_on_html(const Experiment& e, const std::string& root);

}  // namespace agentsim::exp
