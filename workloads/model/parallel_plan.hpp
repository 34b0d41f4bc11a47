#pragma once
// How a model is spread over devices: tensor parallel (tp) within an attention
// group, attention data parallel (attn_dp groups side by side, each holding
// whole sequences), expert parallel (ep ranks splitting the routed experts over
// the tp x attn_dp devices of a stage), and pipeline stages (pp). A plan may
// need more devices than one system has: it then spans whole systems (nodes).
#include <string>
#include <string_view>

namespace agentsim::wl {

struct ParallelPlan {
  int tp = 1;
  int ep = 1;
  int pp = 1;
  int attn_dp = 1;
  // Redundant routed-expert copies over the EP ranks (load balancers replicate hot experts);
  // -1: the fewest that make routed + redundant divide ep.
  int redundant_experts = -1;
  bool engram_on_host = false;  // Engram tables in host memory instead of HBM
  // With attention DP and EP, tokens reach their experts' ranks by an all-to-all (true:
  // DeepEP, MoRI, TensorRT-LLM's) or, false ("a2a=0"), every EP rank all-gathers every DP
  // group's tokens and a reduce-scatter returns the expert outputs (SGLang without
  // --moe-a2a-backend, vLLM's allgather_reducescatter backend).
  bool expert_all_to_all = true;

  int devices_per_stage() const { return tp * attn_dp; }
  int devices() const { return devices_per_stage() * pp; }
  // Each expert is split tensor-parallel over this many devices.
  int expert_tp() const { return devices_per_stage() / ep; }
  // Redundant experts for a model with `routed` experts: the configured count, or the fewest
  // making routed + redundant a multiple of ep (0 without EP or experts).
  int redundant_for(int routed) const;
  // Expert slots each EP rank holds: ceil((routed + redundant) / ep).
  int experts_per_rank(int routed) const;
  // Systems of `per_system` accelerators one replica occupies: ceil(devices / per_system).
  int nodes(int per_system) const;
  std::string to_string() const;
};

// Parses "tp=8,ep=8,pp=1,dp=2,re=32,a2a=0" (any subset, any order; dp = attention DP, re =
// redundant experts, a2a=0 = the expert exchange by all-gather and reduce-scatter) and checks
// that ep divides tp x dp. Throws core::Error on bad input.
ParallelPlan parse_parallel_plan(std::string_view text);

}  // namespace agentsim::wl
