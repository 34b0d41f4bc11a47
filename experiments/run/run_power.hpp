#pragma once
// Power and utilisation of one run over its measurement window (DESIGN.md
// section 3): runtime wall power of every system the deployment occupies
// (busy accelerators by activity, idle ones at idle, hosts, NICs, switches,
// fans, PSU loss) x PUE, the provisioned (nameplate) power, and where the
// busy accelerators' time went.
namespace agentsim::exp {

struct RunPower {
  int systems = 0;                 // systems the deployment occupies
  int accelerators = 0;            // accelerators serving (replicas x devices per replica)
  int accelerators_total = 0;      // systems x accelerators per system (the rest idle)
  double power_w = 0;              // runtime facility power: wall x PUE, time-averaged over the window
  double accelerators_w = 0;       // of which accelerators (all, incl. idle ones), before PUE
  double provisioned_w = 0;        // nameplate x PUE of the occupied systems
  // Sums over steps in the window of each step's breakdown (seconds, per replica step).
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
  double busy_s = 0;               // sum of step durations in the window
};

// Board power per serving accelerator: the accelerators' power less the idle ones' (`idle_w` each),
// over the serving ones; what a GPU monitor on the run's own GPUs averages.
inline double serving_accelerator_w(const RunPower& p, double idle_w) {
  const int idle = p.accelerators_total - p.accelerators;
  return p.accelerators > 0 ? (p.accelerators_w - idle * idle_w) / p.accelerators : 0.0;
}

}  // namespace agentsim::exp
