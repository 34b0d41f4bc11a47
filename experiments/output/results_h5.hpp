#pragma once
// The results.h5 sink (layout in docs/results-h5.md): resolved config and source
// revision as root attributes; tables /runs, /readoffs, /plan_readoffs, /plans;
// per run /requests/NNNN and /steps/NNNN (record.*); per plan /curves/NNNN. Chunked and
// deflate-compressed, written atomically,
// without object timestamps, so equal inputs give byte-identical files.
#include <string>

#include "experiments/config/experiment.hpp"
#include "experiments/run/sweep_outcome.hpp"

namespace agentsim::exp {

void write_results_h5(const std::string& path, const Experiment& e, const SweepOutcome& outcome);

// The git revision the binary was configured from ("unknown" outside a checkout).
std::string source_revision();

}  // namespace agentsim::exp
