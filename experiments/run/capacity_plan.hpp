#pragma once
// Capacity planning: per system type, the deployment that serves N agents
// meeting an SLO (per-agent speed percentile and TTFT percentile) with the
// fewest MW, and how many systems, racks, accelerators and MW that takes.
// Agents per replica come from a doubling search then bisection on concurrency.
#include <string>
#include <vector>

#include "experiments/config/experiment.hpp"
#include "experiments/run/sweep_executor.hpp"

namespace agentsim::exp {

struct CapacityQuestion {
  long long agents = 0;
  SloTier slo;
  long long max_agents_per_replica = 1024;  // the search's upper bound
  double rack_power_w = 41e3;  // systems without a rack of their own share racks of this power budget
};

struct CapacityAnswer {
  std::string system;
  std::string deployment;        // the chosen plan ("" when none is feasible)
  bool feasible = false;
  std::string reason;            // why not, or a note (e.g. bound reached)
  long long agents_per_replica = 0;
  long long replicas = 0;
  long long systems = 0;
  long long racks = 0;
  long long accelerators = 0;
  double runtime_mw = 0;         // modelled facility power at the operating point
  double provisioned_mw = 0;     // nameplate x PUE
  // Error band (experiments/prediction_bands.hpp): systems needed were the operating point's
  // throughput (agents per replica) at the band's low and high ends; 0 when not validated.
  std::string band_regime;
  long long systems_lo = 0, systems_hi = 0;
};

// The plan table's note on the band: "band: REGIME", and where the point lies outside its band,
// which way the regime's measured runs missed ("" when the answer has no band).
std::string band_note(const CapacityAnswer& a);

// Largest meeting concurrency among a plan's runs (the doubling + bisection answer), 0 if none.
long long best_meeting_concurrency(const std::vector<RunResult>& runs, const SloTier& slo);

// Sizes one plan from its largest meeting run.
CapacityAnswer size_plan(const Experiment& e, int plan, const RunResult& at, const CapacityQuestion& q);

// Every system of `e` (plans from its deployment/search), one answer each, in system order.
std::vector<CapacityAnswer> capacity_plan(const Experiment& e, const wl::Trace& sessions, const CapacityQuestion& q,
                                          const ExecOptions& opt, const SweepRanks& ranks);

}  // namespace agentsim::exp
