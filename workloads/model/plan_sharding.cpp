#include "workloads/model/plan_sharding.hpp"

namespace agentsim::wl {

std::string plan_sharding_problem(const ModelSpec& model, const ParallelPlan& plan) {
  if (plan.devices_per_stage() % plan.ep != 0) return "ep must divide tp x dp";
  if (plan.ep > 1 && model.ffn.experts == 0) return "ep > 1 but the model has no routed experts";
  if (plan.redundant_experts > 0 && plan.ep == 1) return "redundant_experts need ep > 1";
  if (model.ffn.experts > 0 && plan.ep > model.ffn.experts + plan.redundant_for(model.ffn.experts)) {
    return "ep=" + std::to_string(plan.ep) + " exceeds the " + std::to_string(model.ffn.experts) + " routed + " +
           std::to_string(plan.redundant_for(model.ffn.experts)) + " redundant experts (a rank would hold none)";
  }
  if (model.heads > 0 && model.heads % plan.tp != 0) {
    return "tp=" + std::to_string(plan.tp) + " does not divide the " + std::to_string(model.heads) + " attention heads";
  }
  if (model.attention.kind == AttentionKind::kGqa && model.kv_heads > 0 && model.kv_heads % plan.tp != 0 &&
      plan.tp % model.kv_heads != 0) {
    return "tp=" + std::to_string(plan.tp) + " neither divides nor is a multiple of the " +
           std::to_string(model.kv_heads) + " KV heads";
  }
  if (plan.pp > model.layers) return "more pipeline stages than the model's " + std::to_string(model.layers) + " layers";
  return {};
}

}  // namespace agentsim::wl
