#pragma once
// A prefill/decode-disaggregated row's plans against the GPUs its notes state. The serving-points-2
// rows of InferenceX's multi-node SGLang runs (framework dynamo-sglang) copied their config's
// per-role degrees, which are placeholders: InferenceX's .github/configs/nvidia-master.yaml gives
// every such role "tp: 1, ep: 1" and says why ("tp, ep, and dp-attn do nothing because they are
// hardcoded in" the launch script, dsr1-fp8-gb200-dynamo-sglang at c4cde0370, 2025-12-21). The GPUs
// each role ran on ("disagg: 4 prefill + 8 decode GPUs") are measured; a worker spans the role's
// GPUs over its workers, and the same config's comments name each attention-DP worker's plan
// "DEPn" ("1 prefill worker at DEP4 and 2 decode workers at DEP4").
#include <string_view>

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

// `d` (map_disaggregated of `plan_text`, which names the row in a reason) when the notes state no role's GPUs or its replicas fill
// exactly the GPUs they state. When they do not: for an InferenceX SGLang row whose every worker
// is stated as one GPU (the placeholders), each role's worker spans (its GPUs / its workers): DEPn
// (dp=n, ep=n) where the role states attention DP, TPn (tp=n, experts tensor-parallel: SGLang's
// default without an EP size) where it does not, at least one GPU a worker and an even share;
// otherwise unmapped, naming both GPU counts.
DisaggregatedPlan disagg_on_stated_gpus(const DisaggregatedPlan& d, std::string_view plan_text, std::string_view notes,
                                        bool inferencex_sglang);

}  // namespace agentsim::calib
