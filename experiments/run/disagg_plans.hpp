#pragma once
// The prefill/decode splits search: auto ranks on one system: a prefill pool of np replicas of
// one valid plan and a decode pool of nd replicas of another (or the same) in the system's GPUs,
// nd as many as the GPUs the prefill pool leaves hold (the rest idle). For every decode plan the
// best prefill plan and ratio by the analytic bound, and the ratios one prefill replica either
// side of it, so the simulation decides between neighbouring P:D ratios.
#include <vector>

#include "experiments/config/experiment.hpp"
#include "experiments/run/plan_ranking.hpp"

namespace agentsim::exp {

// `valid`: the system's valid aggregated plans (indices into e.plans); `unit`: their replica
// bounds by plan index; `link_Bps`: the per-GPU route bandwidth between two of the system's GPUs.
// Each split comes with its bound_tok_s; labels are its pools ("P 1x(tp=8) + D 8x(dp=8,ep=8)").
std::vector<Plan> split_plans(const Experiment& e, int system, const std::vector<int>& valid,
                              const std::vector<ReplicaBound>& unit, const WorkloadProfile& w, double link_Bps);

// The split of `gpus` GPUs with `prefill_replicas` replicas of `prefill` devices prefilling and as
// many replicas of `decode` devices decoding as the rest holds (0 when none fits).
int decode_replicas_left(int gpus, int prefill_replicas, int prefill_devices, int decode_devices);

}  // namespace agentsim::exp
