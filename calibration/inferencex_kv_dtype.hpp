#pragma once
// The KV-cache format an InferenceX run's server was launched with, from its recipe in
// github.com/SemiAnalysisAI/InferenceX (benchmarks/single_node/fixed_seq_len/, the DeepSeek-R1
// scripts at the snapshot this project read, 2026-08):
//   SGLang on B200, FP8 and FP4 (dsr1_fp8_b200.sh, dsr1_fp4_b200.sh, _mtp): `--kv-cache-dtype
//     fp8_e4m3` (in the B200 scripts since 2025-09)
//   SGLang on MI300X, MI325X, MI355X (dsr1_fp8_mi300x.sh, dsr1_fp8_mi325x.sh, dsr1_fp8_mi355x.sh,
//     dsr1_fp4_mi355x.sh, _mtp): `--kv-cache-dtype fp8_e4m3` (added with the SGLang images of
//     2025-12-16, on MI300X again by InferenceX PR #544 of 2026-01-23; the mapped AMD rows ran
//     the later v0.5.9 and v0.5.12 images)
//   TensorRT-LLM (dsr1_fp8_h200_trt.sh, dsr1_fp8_b200_trt.sh, dsr1_fp4_b200_trt.sh, _mtp):
//     `kv_cache_config: dtype: fp8`
//   ATOM on MI355X (dsr1_fp8_mi355x_atom.sh, dsr1_fp4_mi355x_atom.sh, _mtp): `--kv_cache_dtype fp8`
//     (every version, 2026-02 on)
//   SGLang on H200 (dsr1_fp8_h200.sh, _mtp): not set, the model's BF16
//   vLLM gpt-oss (gptoss_fp4_h100.sh, gptoss_fp4_mi300x.sh): not set
// Prefill/decode-disaggregated runs (MeasuredRun::prefill_replicas > 0) ran the multi-node recipes:
//   SGLang + MoRI on MI355X: `--kv-cache-dtype fp8_e4m3` in the DeepSeek-R1 server flags, from the
//     first version of github.com/billishyahao/sglang_disagg (sglang_disagg_server.sh,
//     2025-12-19), which the recipes cloned until InferenceX upstreamed it on 2026-02-19 (#666,
//     benchmarks/multi_node/amd_utils/models.yaml, the same flag since)
//   the others (Dynamo + SGLang or TensorRT-LLM on NVIDIA): not read here, the model's format
// A row's own precision text ("FP8 KV") takes precedence (MeasuredRun::kv_dtype already set).
#include <string>

#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// For a row already mapped to catalog model, system and engine: "fp8", or "" (the catalog
// model's KV format) for a model, engine or system the table above does not list as FP8.
std::string inferencex_kv_dtype(const MeasuredRun& r);

}  // namespace agentsim::calib
