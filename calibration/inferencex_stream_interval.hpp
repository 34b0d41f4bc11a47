#pragma once
// The stream interval (output tokens per streamed chunk) an InferenceX run's server was
// launched with, from its recipe in github.com/SemiAnalysisAI/InferenceX (benchmarks/, the
// single-node DeepSeek-R1 scripts; the values below hold in every version from 2025-10 to
// 2026-08 except where noted):
//   SGLang on H200, FP8 (dsr1_fp8_h200.sh, _mtp): `--stream-interval 10`
//   SGLang on B200, FP4 (dsr1_fp4_b200.sh, _mtp): `--stream-interval 10` (two early versions
//     of dsr1_fp4_b200_mtp.sh set 30)
//   SGLang on B200, FP8 (dsr1_fp8_b200.sh, _mtp): `--stream-interval 30`
//   SGLang on MI300X, MI325X, MI355X (dsr1_fp8_mi3*.sh, dsr1_fp4_mi355x.sh, _mtp): not set,
//     SGLang's default 1
//   TensorRT-LLM (dsr1_fp8_h200_trt.sh, dsr1_fp4_b200_trt.sh, ..., _mtp): `stream_interval: 10`
//     in the extra LLM API options
//   vLLM (gptoss_fp4_h100.sh, gptoss_fp4_mi300x.sh): not set, 1
// Which output token the first chunk carries is the engine's rule
// (serving::first_chunk_output_token), not the row's.
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// For a row already mapped to catalog model, system, engine and precision; 1 (every token
// streamed) for a model, engine or system the table above does not list.
int inferencex_stream_interval_tokens(const MeasuredRun& r);

}  // namespace agentsim::calib
