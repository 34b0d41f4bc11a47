#pragma once
// A decoded experiment: everything a sweep needs, typed and validated, with
// resolved catalog entries (after `what_if` overrides) and an absolute trace path.
// One run of it is one plan resolved into a RunSpec (experiments/run/resolve_run.hpp).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "calibration/error_bands.hpp"
#include "experiments/config/deployment_config.hpp"
#include "experiments/config/serving_config.hpp"
#include "experiments/config/workload_config.hpp"
#include "sim/core/yaml_node.hpp"
#include "hwmodels/power_model.hpp"
#include "hwmodels/system.hpp"
#include "workloads/model/model_spec.hpp"

namespace agentsim::exp {

// One candidate deployment of the model on one of the experiment's systems.
struct Plan {
  int system = 0;             // index into Experiment::systems
  std::string label;          // "tp=8" (search keys in declaration order), stable across runs
  DeploymentConfig deployment;
  std::string pruned;         // why this plan cannot run (empty = valid)
  // Disaggregated prefill/decode (prefill_replicas > 0): prefill_replicas replicas of `prefill`
  // compute the prompts and decode_replicas replicas of `deployment` decode; every prompt's KV
  // crosses from the first pool to the second. Searched (rank_plans) or 0 (serving.disaggregation).
  int prefill_replicas = 0;
  int decode_replicas = 0;
  DeploymentConfig prefill;
  std::string prefill_label;  // the prefill pool's plan, as `label`
  // search: auto (rank_plans): the analytic bound, output tok/s of one system at the slowest
  // read-off speed; the plan's place in its system's ranking (1 = best; 0 = not ranked); and
  // whether it is held back, pruned unless the sweep goes on down the ranking to it.
  double bound_tok_s = 0;
  // Facility power of one occupied system at the bound: its busy GPUs at their memory-bound
  // decode draw, idle ones at idle (hw::system_power). The ranking is by bound_tok_s over it, the
  // read-offs' per-MW terms.
  double bound_power_w = 0;
  double bound_prefill_tok_s = 0;  // a split's prefill pool, prompt tok/s: the tie-break between equal bounds
  int bound_rank = 0;
  bool held_back = false;
  bool peer_choice = false;  // simulated because another system of the experiment chose it (search: auto)
};

// An SLO tier: per-agent speed at a percentile of requests and TTFT at a percentile.
struct SloTier {
  double agent_tok_s = 0;     // per-agent output speed the `speed_percentile` request must reach
  int speed_percentile = 10;  // 10 or 50 (of requests in the window)
  double ttft_s = 0;          // TTFT limit at `ttft_percentile` (<= 0: no TTFT limit)
  int ttft_percentile = 90;   // 50, 90 or 99
};

struct Experiment {
  std::string file;   // the YAML it came from
  std::string root;   // the catalog root: relative catalog paths (efficiency_profile) resolve here
  std::string name;
  std::uint64_t seed = 1;
  wl::ModelSpec model;
  ServingConfig serving;
  WorkloadConfig workload;
  std::vector<hw::System> systems;  // `systems` (or the one `system`), in file order
  std::vector<Plan> plans;          // per system, the fixed deployment or every search combination
  bool search_auto = false;         // search: auto (plans ranked by rank_plans before the sweep)
  std::vector<double> readoff_speeds_tok_s;  // per-agent p50 speeds to read throughput per MW at
  std::vector<SloTier> slo_tiers;
  hw::PowerOptions power;
  bool record_requests = true;     // keep per-request tables for results.h5
  bool record_steps = true;        // keep per-step tables for results.h5
  std::string resolved_yaml;       // the document after --set, as decoded (for results.h5)
  double memory_limit_bytes = 0;   // limits.memory (0 = only the machine's memory)
  // Cross-validated error bands: the experiment's `error_bands` file, else the shipped
  // calibration/data/error_bands.yaml under root (null when absent).
  std::shared_ptr<const calib::ErrorBands> error_bands;
  std::string error_bands_file{calib::kShippedErrorBandsPath};  // as the experiment names it
};

// Reads and validates `path` after applying `sets` ("a.b.c=value", value parsed as YAML);
// every problem is a core::Error naming file, line and key. `root` is where the catalogs live.
Experiment load_experiment(const std::string& path, const std::string& root,
                           const std::vector<std::string>& sets = {});
// The same decoding of YAML `text` as if read from `path` (relative paths resolve beside it),
// against `catalog` when given (what_if edits a copy) or the catalogs under `root` otherwise.
struct Catalog;
Experiment parse_experiment(const std::string& text, const std::string& path, const std::string& root,
                            const Catalog* catalog = nullptr, const std::vector<std::string>& sets = {});

// The option declarations of the top level and of the sections this file owns, for `describe`.
std::span<const core::OptionSpec> experiment_options();
std::span<const core::OptionSpec> slo_options();
std::span<const core::OptionSpec> readoff_options();
std::span<const core::OptionSpec> power_options();
std::span<const core::OptionSpec> record_options();
std::span<const core::OptionSpec> what_if_options();
std::span<const core::OptionSpec> limits_options();

}  // namespace agentsim::exp
