#pragma once
// Whether an InferenceX run's server ran without the engine's overlap scheduler, from its recipe in
// github.com/SemiAnalysisAI/InferenceX (the single-node DeepSeek-R1 scripts, every version in the
// mirror, 2026-01 to 2026-08):
//   SGLang with EAGLE/MTP on B200 and B300 in FP8 (dsr1_fp8_b200_mtp.sh from its first version,
//     2026-02-06, and dsr1_fp8_b300_mtp.sh): the script assigns SGLANG_ENABLE_SPEC_V2=1 without
//     `export`, so the server does not see it, and SGLang 0.5 turns the overlap scheduler off for
//     EAGLE without it (python/sglang/srt/server_args.py: "Overlap scheduler is disabled because of
//     using eagle3 or standalone speculative decoding."): off.
//   SGLang's other MTP scripts (FP4 on B200, H200, MI325X, MI355X) export it from their first
//     versions (2026-05-18 to 05-20, before their rows ran); no other DeepSeek-R1 script disables
//     the overlap scheduler (SGLang, TensorRT-LLM) or async scheduling (vLLM): on.
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// For a row already mapped to catalog model, system, engine, precision and speculation.
bool inferencex_overlap_scheduler_off(const MeasuredRun& r);

}  // namespace agentsim::calib
