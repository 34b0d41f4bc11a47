#pragma once
// The decode servers' draft tokens of an InferenceX prefill/decode-disaggregated DeepSeek-R1 run
// with MTP, from its recipe, where it is read:
//   MI355X SGLang with MoRI (framework sglang-disagg): DECODE_MTP_SIZE of the search-space entry
//     of github.com/SemiAnalysisAI/InferenceX .github/configs/amd-master.yaml (the last commit on
//     or before the run date) listing the row's precision, lengths, prefill and decode workers,
//     degrees and concurrency (dsr1-fp{4,8}-mi355x-sglang-disagg{,-mtp,-8k1k-mtp}): 1, 2 or 3.
//     benchmarks/multi_node/amd_utils/server.sh launches the decode servers with
//     `--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-steps N
//     --speculative-num-draft-tokens N+1` (models.yaml's mtp_flags): N drafts a step. SGLang runs
//     EAGLE without its overlap scheduler unless SGLANG_ENABLE_SPEC_V2 is exported
//     (python/sglang/srt/server_args.py), which amd_utils/env.sh does from 2026-05-07 (commit
//     ec02dba57, "[AMD] improve dsr1 fp4 disagg perf on mi355x").
//   SGLang with Dynamo (framework dynamo-sglang): speculative-num-steps of the decode section of
//     the srt-slurm recipe (CONFIG_FILE) its nvidia-master.yaml entry names (EAGLE, topk 1): 2 or 3;
//     the overlap scheduler off where the recipe's decode_environment leaves SGLANG_ENABLE_SPEC_V2
//     unset. The table in the .cpp cites each recipe and commit.
//   TensorRT-LLM (framework dynamo-trt): the `_mtp3` recipes inferencex_disagg_limits.cpp reads
//     (num_nextn_predict_layers 3).
// A TensorRT-LLM row whose recipe is not named stays unread (draft_tokens 0: the row is listed as
// unmapped).
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// Sets r.draft_tokens and r.overlap_scheduler_off for a SGLang speculative disaggregated row mapped
// to system, precision, lengths, concurrency, plans, replicas and run date, where its recipe is read.
void apply_inferencex_disagg_drafts(MeasuredRun& r);

}  // namespace agentsim::calib
