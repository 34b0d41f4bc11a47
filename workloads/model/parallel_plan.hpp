#pragma once
// How a model is spread over devices: tensor parallel (tp) within an attention
// group, attention data parallel (attn_dp groups side by side, each holding
// whole sequences), expert parallel (ep ranks splitting the routed experts over
// the tp x attn_dp devices of a stage), and pipeline stages (pp).
#include <string>
#include <string_view>

namespace agentsim::wl {

struct ParallelPlan {
  int tp = 1;
  int ep = 1;
  int pp = 1;
  int attn_dp = 1;
  bool engram_on_host = false;  // Engram tables in host memory instead of HBM

  int devices_per_stage() const { return tp * attn_dp; }
  int devices() const { return devices_per_stage() * pp; }
  // Each expert is split tensor-parallel over this many devices.
  int expert_tp() const { return devices_per_stage() / ep; }
  std::string to_string() const;
};

// Parses "tp=8,ep=8,pp=1,dp=2" (any subset, any order; dp = attention DP) and
// checks that ep divides tp x dp. Throws core::Error on bad input.
ParallelPlan parse_parallel_plan(std::string_view text);

}  // namespace agentsim::wl
