#pragma once
// Power of accelerators and systems from what they are doing.
//
// Accelerator: P = idle + (TDP - idle) x activity. Activity over a step is the
// time-weighted mean of: 1 while compute-bound; decode_power_fraction while
// memory-bound (arXiv 2605.11999: H200 decode draws 137-300 W of 700 W), with
// a linear blend by compute_s / memory_s in between; decode_power_fraction
// during communication; 0 during overhead (host scheduling, launch gaps).
//
// System: accelerators + host CPUs + host memory + NICs + scale-up switches +
// fans and misc, divided by PSU efficiency (wall power), optionally x PUE.
// Provisioned power is the nameplate (x PUE).
#include "hwmodels/accelerator.hpp"
#include "hwmodels/system.hpp"

namespace agentsim::hw {

// Where one accelerator's time went during a step (seconds).
struct StepTimes {
  double compute_s = 0;   // roofline compute time
  double memory_s = 0;    // roofline memory time
  double comm_s = 0;      // exposed communication
  double overhead_s = 0;  // scheduler, launch floors
  // The roofline part runs max(compute_s, memory_s).
  double duration_s() const { return (compute_s > memory_s ? compute_s : memory_s) + comm_s + overhead_s; }
};

// Mean activity in [0, 1] over the step; 0 for an empty step.
double accelerator_activity(const Accelerator& a, const StepTimes& step);
// idle + (TDP - idle) x activity.
double accelerator_power_w(const Accelerator& a, double activity);
// Energy of one accelerator over the step.
double accelerator_energy_j(const Accelerator& a, const StepTimes& step);

struct PowerOptions {
  double pue = 1.0;              // facility overhead multiplier, >= 1
  double host_cpu_load = 0.5;    // fraction of CPU TDP drawn while serving (assumed: CPUs schedule and tokenize, far from TDP)
};

// Wall power of one system, by component (watts).
struct SystemPower {
  double accelerators_w = 0;
  double host_cpus_w = 0;
  double host_memory_w = 0;
  double nics_w = 0;
  double switches_w = 0;
  double fans_misc_w = 0;
  double psu_loss_w = 0;
  double wall_w = 0;       // sum of the above
  double facility_w = 0;   // wall_w x PUE
};

// One system whose accelerators draw `mean_accelerator_w` each on average.
SystemPower system_power(const System& s, double mean_accelerator_w, const PowerOptions& opt = {});
// All accelerators at TDP and CPUs at TDP: the modeled maximum.
SystemPower system_power_at_tdp(const System& s, const PowerOptions& opt = {});
// Nameplate x PUE.
double provisioned_power_w(const System& s, const PowerOptions& opt = {});

// Accumulates accelerator energy step by step over a window; accelerators not
// covered by a step idle. Runtime power = energy / window.
class EnergyMeter {
 public:
  // `systems` identical systems; the meter covers all their accelerators.
  EnergyMeter(const System& s, int systems, PowerOptions opt = {});
  // `accelerators` of them ran `step` (e.g. a replica's TP group).
  void add_step(const StepTimes& step, int accelerators);
  // Mean power over a window of `window_s` seconds (steps added must fit in it),
  // for all systems together.
  SystemPower runtime(double window_s) const;
  double busy_accelerator_seconds() const { return busy_s_; }

 private:
  const System& system_;
  int systems_;
  PowerOptions opt_;
  double step_energy_j_ = 0;  // accelerator energy during steps
  double busy_s_ = 0;         // accelerator-seconds covered by steps
};

}  // namespace agentsim::hw
