#pragma once
// Whether a parallel plan can shard a model at all, whatever system it runs on: EP divides
// tp x dp (and the model has experts, at least one a rank: ep <= routed + redundant), TP
// divides the attention heads (for GQA also divides, or is a multiple of, the KV heads), no
// more stages than layers. EP need not divide the routed experts: redundant experts fill the
// ranks (ParallelPlan::experts_per_rank).
#include <string>

#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::wl {

// Empty when the plan shards the model; else why not, e.g. "tp=3 does not divide the 32 attention heads".
std::string plan_sharding_problem(const ModelSpec& model, const ParallelPlan& plan);

}  // namespace agentsim::wl
