#pragma once
// TensorRT-LLM's context waits (serving::ContextWait) an InferenceX run's server was launched
// with, from its recipe's extra LLM-API options in github.com/SemiAnalysisAI/InferenceX (the
// single-node DeepSeek-R1 TensorRT-LLM scripts dsr1_fp8_b200_trt.sh, dsr1_fp4_b200_trt.sh,
// dsr1_fp8_h200_trt.sh and their _mtp versions, read in every version from 2026-01-05 to 2026-07,
// under benchmarks/, benchmarks/single_node/ and benchmarks/single_node/fixed_seq_len/; their
// main-branch predecessors benchmarks/dsr1_*_trt_slurm.sh set the same balance from 2025-09-18):
//   - with attention DP (the scripts' DP_ATTENTION=true; a row's "DPA" plan): attention_dp_config
//     {batching_wait_iters: 0, enable_balance: true, timeout_iters: 60} in every version of all six.
//   - dsr1_fp8_b200_trt.sh (no MTP) at 1k/1k and concurrency >= 64, from 2026-01-28 (commit
//     ed673c8e4; the day before, 0a919c5f8 set it on another branch): DELAY_BATCHING, that is
//     batch_wait_timeout_iters 40 and batch_wait_max_tokens_ratio 0.8 (which TensorRT-LLM applies
//     only without attention DP). Rows without a date are taken to run without it.
// SGLang and vLLM rows: none (0).
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// Sets r.balance_timeout_steps, r.batch_wait_steps and r.batch_wait_max_tokens_ratio for a row
// already mapped to catalog model, system, engine, plan, lengths, concurrency and run date.
void apply_inferencex_context_wait(MeasuredRun& r);

}  // namespace agentsim::calib
