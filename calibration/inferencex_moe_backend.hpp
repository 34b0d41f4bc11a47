#pragma once
// The MoE runner an InferenceX run's server was launched with (TensorRT-LLM's moe_config.backend),
// from its DeepSeek-R1 recipe in github.com/SemiAnalysisAI/InferenceX, read in every main-branch
// version of dsr1_fp8_b200_trt.sh and dsr1_fp8_b200_trt_mtp.sh (benchmarks/, their _slurm.sh
// predecessors, benchmarks/single_node/ and benchmarks/single_node/fixed_seq_len/):
//   without MTP: DEEPGEMM from 2025-09-18 (commit ec90f3fe7; "backend: TRTLLM" before); from
//     2026-01-29 (merge ec7bafaae of ed673c8e4) TRTLLM, DEEPGEMM at 1k/8k from concurrency 256;
//     from 2026-03-27 (626932a11) TRTLLM everywhere;
//   with MTP: DEEPGEMM from the first script (2026-01-15, bf3456727; the rows of 2026-01-14 ran
//     its PR branch, as inferencex_batch_limits.hpp reads); from 2026-02-05 (5d517074c) TRTLLM,
//     DEEPGEMM with attention DP.
// TRTLLM is the TRTLLM-gen fused MoE (flashinfer-trtllm-gen), DEEPGEMM DeepGEMM's grouped GEMMs
// (deepgemm). The FP4 B200 scripts run TRTLLM, or CUTLASS with attention DP, and the H200 scripts
// CUTLASS: no CUTLASS MoE table is measured, so those rows, undated rows, other engines and
// models keep the engine's choice (experiments/catalog/kernel_implementations.yaml; TensorRT-LLM's
// on Hopper is its default CUTLASS MoE, priced from the Triton fused MoE's table).
#include <string>

#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// The implementation id of the row's expert GEMMs (its "grouped_gemm_fp8" table) where its recipe
// chose it, else "" (the engine's). For a row mapped to model, system, engine, plan, precision,
// lengths, concurrency, speculation and run date.
std::string inferencex_moe_implementation(const MeasuredRun& r);

}  // namespace agentsim::calib
