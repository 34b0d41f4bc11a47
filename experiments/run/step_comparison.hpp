#pragma once
// The same engine step priced on two systems, op by op (`agentsim explain --compare`): each
// side's time, bound, efficiencies and the table behind it (its note names the kernel
// implementation and whether it was measured or derived), and the time ratio. price_step
// prices one step with the options a run of that plan would use (resolve_run), the engine's
// host-time model and kernel selection included.
#include <string>
#include <vector>

#include "experiments/config/catalog.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "sim/serving/step_cost.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::exp {

// One step of `model` under `plan` on `system`, as `agentsim explain` prices it with its defaults
// (the accelerator's calibration profile, CUDA graphs on, speculation as the model's drafter).
serving::StepCost price_step(const Catalog& catalog, const std::string& root, const wl::ModelSpec& model,
                             const hw::System& system, const wl::ParallelPlan& plan, const serving::StepBatch& batch,
                             serving::Engine engine);

// The plan `explain` uses on `system` without --plan (serving::choose_plan, Engram where the model places it).
wl::ParallelPlan default_plan(const wl::ModelSpec& model, const hw::System& system);

struct OpSide {
  bool present = false;  // the op is in this side's step
  double time_s = 0;
  serving::Cause bound = serving::Cause::kCompute;
  double e_compute = 0, e_memory = 0;
  std::string dtype;
  std::string table;  // the op's note: the table (and implementation) behind it
};

struct OpComparisonRow {
  std::string layer_kind, op;
  OpSide a, b;
  double ratio = 0;  // b.time_s / a.time_s; 0 where a side lacks the op or a's time is 0
};

struct StepComparison {
  std::vector<OpComparisonRow> ops;  // a's ops in order, then ops only b has
  double a_total_s = 0, b_total_s = 0;
  double ratio = 0;                  // b_total_s / a_total_s
  serving::CauseTotals a_causes, b_causes;
};

// Rows matched by (layer kind, op).
StepComparison compare_steps(const serving::StepCost& a, const serving::StepCost& b);

}  // namespace agentsim::exp
