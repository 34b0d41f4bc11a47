#pragma once
// Runs an experiment: one simulation per concurrency level, each measured over
// its window after warm-up. Pure computation; sinks write the results.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/run/prediction_bands.hpp"
#include "experiments/run/run_power.hpp"

#include "experiments/config/experiment.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/serving/pods.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

struct RunResult {
  int concurrency = 0;  // closed-loop agents (0 in the open modes)
  double level = 0;     // agents, sessions/s (poisson) or time scale (open loop)
  metrics::Summary summary;
  long long kv_capacity_tokens = 0;
  long long turns_truncated = 0;   // prompts cut to the model's context
  unsigned long long events = 0;   // simulator events run
  // Set by the sweep (experiments/run/sweep.hpp) and by account_run (experiments/run/run_accounting.hpp).
  std::string id;                  // stable run id: system/deployment/level
  std::string system;              // system catalog name
  std::string deployment;          // plan label, e.g. "tp=8"
  std::uint64_t seed = 0;          // the run's derived seed
  std::string skipped;             // why the run could not be simulated (empty = it ran)
  bool bisection = false;          // run added by the SLO bisection
  RunPower power;                  // power and step-time breakdown over the window
  PredictionBand band;             // error band of the headline figures (experiments/prediction_bands.hpp)
  std::vector<metrics::RequestRecord> requests;  // completed in the window (if recorded)
  std::vector<metrics::StepRecord> steps;        // ending in the window (if recorded)
};

struct RunSpec;

// One pod's part of a run (serving.pods), before the pods merge: its records, its cache
// counters over the window, and its counts. Pods of one run may be simulated on different
// threads or MPI ranks (experiments/run/run_codec.hpp moves one as bytes) and merge in pod order.
struct PodOutcome {
  metrics::Recorder recorder;
  metrics::CacheCounters counters;  // over the window (since warm-up)
  long long turns_truncated = 0;
  unsigned long long events = 0;
  int replicas = 0;
  double finished_at_s = -1;  // a finite run (workload.session_limit): its last answer; < 0 while unfinished
};

// Throws the error run_point gives when the plan leaves no KV cache.
void check_kv_fits(const Experiment& e, const RunSpec& spec);
// Pod `pod` of the experiment's serving.pods for a run of `spec` at `level` under `seed`.
PodOutcome run_pod(const Experiment& e, const RunSpec& spec, const wl::Trace& sessions, double level,
                   std::uint64_t seed, int pod);
// The pods a run of `spec` at `level` simulates (serving.pod_sampling), each with the pods it stands for.
std::vector<serving::PodClass> simulated_pods(const Experiment& e, const RunSpec& spec, double level);
// The run made of its pods' outcomes, given in pod order (what run_point returns); part i counts
// stands_for[i].count times (empty: every part once).
RunResult merge_pods(const Experiment& e, const RunSpec& spec, double level, std::vector<PodOutcome>&& parts,
                     const std::vector<serving::PodClass>& stands_for = {});

// One run of `spec` (a plan of `e` resolved by resolve_run) at `level` (see RunResult::level)
// over `sessions`, in the experiment's replay mode under `seed`; the pods of serving.pods run on
// up to `threads` threads (results do not depend on it). Throws when no KV cache fits.
RunResult run_point(const Experiment& e, const RunSpec& spec, const wl::Trace& sessions, double level,
                    std::uint64_t seed, int threads = 1);
// The same for the experiment's first valid plan under its own seed.
RunResult run_point(const Experiment& e, const wl::Trace& sessions, double level, int threads = 1);

// Loads the experiment's trace or generates its sessions (errors name the trace file).
wl::Trace load_sessions(const Experiment& e);

}  // namespace agentsim::exp
