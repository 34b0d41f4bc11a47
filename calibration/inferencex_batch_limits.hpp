#pragma once
// The batch limits an InferenceX run's server was launched with, from its DeepSeek-R1 recipe in
// github.com/SemiAnalysisAI/InferenceX (benchmarks/single_node/fixed_seq_len/dsr1_*.sh and their
// earlier paths, benchmarks/dsr1_*_docker.sh, _slurm.sh, read in every version on the main
// branch from 2025-09 to 2026-08; the MTP TensorRT-LLM rows of 2026-01-14 ran the scripts' PR
// branch, whose settings the merged scripts kept):
// SGLang, the prefill budget min(--chunked-prefill-size, --max-prefill-tokens; SGLang's default
// 16384 where unset), --max-running-requests where set, and --mem-fraction-static:
//   B200 FP8 (dsr1_fp8_b200.sh):      TP 8 32768 tokens, 128 requests, 0.82; TP 4 8192, 32, 0.95
//   B200 FP8 MTP (_mtp):              16384 tokens, 512 requests, 0.82
//   B200 FP4 (dsr1_fp4_b200.sh, _mtp): --chunked-prefill-size 16384 (32768 with attention DP from
//                                     2026-06-23, the MTP script's from 2026-07-02, under the
//                                     default 16384 of --max-prefill-tokens), 256 requests, 0.85
//                                     (the MTP script's 0.82 until 2026-07-02)
//   H200 FP8 (dsr1_fp8_h200.sh, _mtp): 32768 tokens; 512 requests at 1k/1k, else 256; 0.82
//   MI300X, MI325X FP8 (+ _mtp):      131072 tokens; requests unset; 0.8
//   MI355X FP8 (+ _mtp):              196608 tokens; requests unset (the MTP script's the row's
//                                     concurrency from 2026-05-20); 0.8
//   MI355X FP4 (+ _mtp):              196608 tokens, 32768 at 8k/1k above concurrency 32; 0.8
//   Where an MTP script leaves the requests unset, SGLang's speculative path caps them at 48 (the
//   MI355X FP4 MTP rows at concurrency 64 wait 4.3-5.9 s for a first token); except on MI325X,
//   whose MTP script leaves them unset too but whose run decoded ~61 of 64 requests at once
//   (output tok/s x median TPOT) with a 0.13 s median TTFT (cause unknown: same flags, SGLang 0.5.12)
// TensorRT-LLM, kv_cache_config.free_gpu_memory_fraction (of the memory left after the weights):
// 0.8 on B200 (0.75 for the FP8 script's TP 4 at 8k/1k from 2026-01-29; 0.7 with attention DP in
// the FP8 scripts, the MTP one's from 2026-02-05, the other's 2026-01-29 to 2026-03-26), 0.75 on
// H200; and --max_num_tokens (per attention-DP rank with attention DP):
//   without MTP (dsr1_fp8_b200_trt.sh, dsr1_fp4_b200_trt.sh, dsr1_fp8_h200_trt.sh):
//     max(8192, ceil64(concurrency + isl + 127)); before the floor (commit 64af5a771, 2026-01-21)
//     ceil64(concurrency + isl + 127) alone (the _slurm.sh scripts from 2025-09-18)
//   with MTP (the _mtp scripts), ceil64((nextn + 1) x max_batch_size + isl + 127) and
//   --max_batch_size max_batch_size: without attention DP nextn 3 and max_batch_size =
//   concurrency; with it nextn 1 and max_batch_size concurrency / 8 (B200 FP8, from 2026-02-05),
//   concurrency / 4 (B200 FP4, from 2026-02-06), concurrency below those divisors itself, and
//   concurrency / TP before (and on H200).
// ATOM on MI355X (dsr1_fp{8,4}_mi355x_atom{,_mtp}.sh, every version): none set, so ATOM's defaults
// (github.com/ROCm/ATOM atom/model_engine/arg_utils.py, unchanged 2026-02 to 2026-08):
// max_num_batched_tokens 16384, max_num_seqs 512, gpu_memory_utilization 0.9 (of the whole HBM for
// weights, activations and KV: atom/model_engine/model_runner.py, "planned = total x
// gpu_memory_utilization").
// vLLM rows and other models: none (0, the base experiment's).
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// Sets r.max_batch_tokens, r.max_sequences, r.memory_fraction and r.kv_free_memory_fraction for a
// row already mapped to catalog model, system, engine, plan, precision, lengths, concurrency,
// speculation and run date.
void apply_inferencex_batch_limits(MeasuredRun& r);

}  // namespace agentsim::calib
