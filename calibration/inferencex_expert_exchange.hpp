#pragma once
// How an InferenceX prefill/decode-disaggregated SGLang run's decode servers exchange tokens with
// their experts, from the srt-slurm recipe its nvidia-master.yaml entry names (CONFIG_FILE):
// the H100 and H200 recipes with attention DP and EP (github.com/NVIDIA/srt-slurm
// recipes/h100/{1k1k,1k8k,8k1k}/{mtp,stp}/h100-fp8-1p1d-max-dep*.yaml @616191ca, recipes/h200/
// 1k1k/bs256-1p6d-dep.yaml and 8k1k/bs128-1p1d-dep.yaml @35d6fb1d) set no --moe-a2a-backend, so
// SGLang runs its default "none" (python/sglang/srt/server_args.py, moe_a2a_backend = "none"):
// every rank gathers every DP rank's tokens before the MoE and reduce-scatters its output
// (python/sglang/srt/layers/communicator.py, _gather_hidden_states_and_residual with
// attn_dp_size != 1), and the MoE runner is SGLang's default one, not DeepGEMM behind DeepEP.
// The GB200 recipes of the same repository set --moe-a2a-backend deepep.
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// False where the row's decode servers run SGLang's all-gather expert exchange (above); true
// otherwise (the engine's all-to-all where attention is data parallel). For a row mapped to
// system, engine, plan and replicas.
bool inferencex_expert_all_to_all(const MeasuredRun& r);

}  // namespace agentsim::calib
