#pragma once
// `agentsim explain ... --compare SYSTEM`: the explained step priced again on a second system
// (the same plan where it is valid there, else that system's default plan) and printed op by
// op: each side's time, bound and table (implementation, measured or derived) and the ratio, then
// what the measured runs that compared the two systems say (calibration/system_comparison.hpp).
#include <string>

#include "calibration/system_comparison.hpp"
#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "sim/serving/step_cost.hpp"

namespace agentsim::cli {

struct CompareRequest {
  const exp::Catalog* catalog = nullptr;
  exp::Experiment experiment;      // the explained step's experiment: its one system and plan
  wl::ModelSpec placed;            // the model, Engram where the step places it
  serving::StepBatch batch;
  std::string batch_text;
  double host_kv_tokens = 0;
  bool plan_given = false;         // --plan: it must be valid on both systems
  bool json = false;
  std::string other;               // --compare's system
  serving::StepCost first;         // the step on the explained system
  // The measured runs' verdict on the two systems (validate's system comparisons; the shipped
  // file when it is there): printed after the step, or that no pair of runs compared them.
  const calib::SystemComparisons* validated = nullptr;
  std::string validated_path;
};

// Prints the comparison; returns the exit code (throws core::Error for an unknown system or a
// --plan invalid on the other system).
int explain_compare(const CompareRequest& r);

}  // namespace agentsim::cli
