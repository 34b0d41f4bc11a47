#pragma once
// The `deployment` section: how the model is laid out on the system's devices
// (parallel plan) and the engine options the step cost model prices
// (overlap, CUDA graphs, expert imbalance, micro-batches, host loads,
// speculative decoding).
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sim/core/yaml_node.hpp"
#include "hwmodels/system.hpp"
#include "sim/serving/step_cost.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::exp {

// `deployment.speculative`: the model's shipped drafter (auto), none (off), or one given.
enum class SpecMode { kAuto, kOff, kExplicit };

struct DeploymentConfig {
  wl::ParallelPlan plan;        // tp, ep, pp, attention dp, Engram placement: the one home of the degrees
  serving::Overlap overlap = serving::Overlap::kNone;  // serving::kOverlapNames
  // Decode steps replayed from CUDA/HIP graphs. Unset: replayed when an engine model prices the
  // host time (every catalog engine replays decode by default, and its fitted host times assume
  // it), launched eagerly with a constant serving.step_overhead.
  std::optional<bool> cuda_graph;
  double ep_imbalance = 1.0;
  int micro_batches = 1;
  bool host_prefetch = false;   // KV loads from host
  bool engram_prefetch = true;  // Engram rows on host (see serving/engram_exposure.hpp)
  SpecMode spec_mode = SpecMode::kAuto;  // auto: as a latency-oriented engine configuration would
  serving::SpecDecodeOptions spec;       // kExplicit's drafter (resolve_speculative picks the run's)
  // `draft_schedule`: drafts by running sequences, for whichever drafter runs (SpecDecodeOptions::schedule).
  std::vector<std::pair<int, int>> draft_schedule;
  // How collectives are priced: analytical in runs; `explain --fidelity flow` picks the flow model.
  serving::CollectiveFidelity collective_fidelity = serving::CollectiveFidelity::kAnalytical;
};

// The declarations of the keys above, for `agentsim describe` and the search space.
std::span<const core::OptionSpec> deployment_options();

// The drafter a run of `model` uses: auto = the model's catalog `speculative` section when
// it has one (vLLM and SGLang run a shipped MTP/drafter when configured for latency), else off.
serving::SpecDecodeOptions resolve_speculative(const DeploymentConfig& d, const wl::ModelSpec& model);

// Decodes `deployment` (absent = defaults) and checks the plan fits `model`
// on `system` (serving::check_plan), reporting the reason at the section.
DeploymentConfig decode_deployment(const core::YamlNode* dep, const wl::ModelSpec& model, const hw::System& system);

}  // namespace agentsim::exp
