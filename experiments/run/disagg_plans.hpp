#pragma once
// The prefill/decode splits search: auto ranks on one system. A split is k identical pods, each
// `a` prefill replicas of one valid plan and `b` decode replicas of another (or the same), a and b
// coprime, as many pods as the system's GPUs hold (the rest idle). Pods hold at most
// kMaxPodDecodeReplicas decode and kMaxPodPrefillReplicas prefill replicas, so a representative
// pod is simulated for the whole system, as one replica stands for an aggregated plan's others.
// For every decode plan, the three best prefill plans and pod shapes by the analytic bound.
#include <vector>

#include "experiments/config/experiment.hpp"
#include "experiments/run/plan_ranking.hpp"

namespace agentsim::exp {

inline constexpr int kMaxPodDecodeReplicas = 2;
inline constexpr int kMaxPodPrefillReplicas = 8;

// `valid`: the system's valid aggregated plans (indices into e.plans); `unit`: their replica
// bounds by plan index; `link_Bps`: the per-GPU route bandwidth between two of the system's GPUs.
// Each split comes with its bound_tok_s; labels are its pools ("P 2x(tp=8) + D 1x(dp=8,ep=8)").
std::vector<Plan> split_plans(const Experiment& e, int system, const std::vector<int>& valid,
                              const std::vector<ReplicaBound>& unit, const WorkloadProfile& w, double link_Bps);

// Pods of `prefill` prefill replicas (`prefill_devices` each) and `decode` decode replicas
// (`decode_devices` each) that `gpus` GPUs hold (0 when not even one fits).
int pods_that_fit(int gpus, int prefill, int prefill_devices, int decode, int decode_devices);

}  // namespace agentsim::exp
