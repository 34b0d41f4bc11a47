#pragma once
// The draft tokens per step (speculative decoding's k) an InferenceX MTP run's server was launched
// with, from its DeepSeek-R1 recipe in github.com/SemiAnalysisAI/InferenceX (every version in the
// mirror; rows measured before a script existed follow its oldest version):
//   SGLang on B200 and H200 (dsr1_fp8_b200_mtp.sh, dsr1_fp4_b200_mtp.sh, dsr1_fp8_h200_mtp.sh):
//     --speculative-num-steps 2 (EAGLE top-1, 3 draft tokens verified with the sampled one): 2
//   SGLang on MI325X and MI355X (dsr1_fp8_mi325x_mtp.sh, dsr1_fp8_mi355x_mtp.sh,
//     dsr1_fp4_mi355x_mtp.sh): --speculative-num-steps 3: 3
//   TensorRT-LLM (the _trt_mtp scripts): num_nextn_predict_layers 3, 1 with attention DP
//   ATOM on MI355X (dsr1_fp8_mi355x_atom_mtp.sh, dsr1_fp4_mi355x_atom_mtp.sh): --method mtp, which
//     drafts ATOM's default num_speculative_tokens of 1 (github.com/ROCm/ATOM
//     atom/model_engine/arg_utils.py); the FP8 script adds --num-speculative-tokens 3 from
//     2026-04-02 (InferenceX commit 1aa6aa7db, "ATOM DS R1 FP8 MTP 3 tokens support"): 3 from then
// Rows without speculation, vLLM rows and other models: 0 (the model's drafter as it is).
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// For a row already mapped to catalog model, system, engine, plan and speculation.
int inferencex_draft_tokens(const MeasuredRun& r);

}  // namespace agentsim::calib
