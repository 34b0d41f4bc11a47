#pragma once
// A parallel plan placed on its systems: which GPUs (topology indices) form
// each tensor-parallel, expert-parallel and pipeline group, and whether the
// plan is valid for the model on that system (with the reason when not).
// Devices are numbered stage-major: stage s, attention-DP group g, TP rank r
// sits on GPU s x (tp x dp) + g x tp + r; GPU i is in system i / accelerators.
// A plan needing more devices than one system has spans ceil(devices /
// accelerators) whole systems joined by their scale-out NICs.
#include <string>
#include <vector>

#include "hwmodels/system.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::serving {

struct PlanPlacement {
  std::vector<int> tp_group;   // GPUs of the first TP group (stage 0, DP group 0)
  std::vector<int> ep_group;   // GPUs of the first EP group (stage 0, one per expert shard)
  std::vector<int> dp_group;   // first TP rank of each attention-DP group of stage 0
  std::vector<int> pp_chain;   // first GPU of each stage
  int devices = 0;
};

PlanPlacement place_plan(const wl::ParallelPlan& plan);
// Whether `gpus` (topology indices) lie in more than one system of `accelerators` GPUs; and
// whether `plan`'s expert-parallel group does.
bool spans_systems(const std::vector<int>& gpus, int accelerators);
bool ep_spans_systems(const wl::ParallelPlan& plan, int accelerators);

// Most systems one replica may span.
inline constexpr int kMaxNodes = 16;

// Empty when `plan` can be laid on whole copies of `system` (within one system, or over
// at most kMaxNodes whole systems that have scale-out NICs); else why not.
std::string plan_layout_problem(const wl::ParallelPlan& plan, const hw::System& system);

struct PlanCheck {
  bool ok = true;
  std::string reason;  // why the plan is invalid; empty when ok
  double weight_bytes_per_device = 0;
  double kv_bytes_per_device = 0;  // for `min_kv_tokens` of context
  double hbm_budget_bytes = 0;     // HBM x memory_fraction
};

// Rejects plans that cannot be laid on whole systems (plan_layout_problem), EP
// wider than the routed + redundant experts (or EP on a dense model), TP not dividing the heads (or the
// KV heads, for GQA), more stages than layers, fewer devices than the model's
// min_gpus, and weights (+ Engram tables when in HBM) + the KV of one
// `min_kv_tokens` sequence not fitting in HBM x memory_fraction.
PlanCheck check_plan(const wl::ModelSpec& model, const hw::System& system, const wl::ParallelPlan& plan,
                     double memory_fraction = 0.9, double min_kv_tokens = 4096);

// The valid plan on the fewest devices (powers of two within the system, then
// two and four whole systems; TP first, then attention DP, then PP; EP over the
// stage for MoE models; Engram where the model places it by default);
// throws core::Error with the last reason when none fits on `system`.
wl::ParallelPlan choose_plan(const wl::ModelSpec& model, const hw::System& system, double memory_fraction = 0.9,
                             double min_kv_tokens = 4096);

}  // namespace agentsim::serving
