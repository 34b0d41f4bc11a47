#pragma once
// A deployment as people read it, the one spelling every output uses (CSV, report, terminal,
// HDF5): replicas x (plan) per pool, and the GPUs it occupies of the systems it stands on.
//   "9x(tp=8) on 72 GPUs"   "8x(tp=8) on 64 of 72 GPUs (8 idle)"
//   "P 1x(tp=4,ep=4,dp=4) + D 7x(dp=8,ep=8) on 72 GPUs"
#include <string>

#include "experiments/config/experiment.hpp"

namespace agentsim::exp {

// "8x(tp=8)", or with prefill replicas "P 1x(tp=4) + D 7x(dp=8,ep=8)" (`replicas` decode).
std::string pools_text(int replicas, const std::string& plan, int prefill_replicas = 0,
                       const std::string& prefill_plan = "");
// `pools` on `used_gpus` of the whole systems of `system_gpus` GPUs they need, idle ones named.
std::string format_deployment(const std::string& pools, long long used_gpus, int system_gpus);

// Unified replicas of `p`: serving.replicas, or fill: as many as one system holds (at least one).
int unified_replicas(const Experiment& e, const Plan& p);
// GPUs `p` occupies: every replica of both pools.
long long deployment_gpus(const Experiment& e, const Plan& p);
// A hand-written prefill/decode split (serving.disaggregation) that needs more GPUs than its
// `systems` hold, on any valid plan, is an input error at that key.
void check_split_fits(const Experiment& e);
// The name of `p` under the experiment's serving section (searched or hand-written split, fill).
std::string deployment_name(const Experiment& e, const Plan& p);

}  // namespace agentsim::exp
