#pragma once
// The scheduler receive interval (SGLang --scheduler-recv-interval) an InferenceX run's server
// was launched with, from its recipe in github.com/SemiAnalysisAI/InferenceX (the single-node
// DeepSeek-R1 scripts, read in every version from 2026-01-05, the snapshot's oldest, to 2026-08):
//   SGLang on B200, FP8 and FP4, with and without MTP (dsr1_fp8_b200.sh, dsr1_fp4_b200.sh,
//     dsr1_fp8_b200_mtp.sh, dsr1_fp4_b200_mtp.sh): 30 at concurrency >= 16, else 10; the FP8
//     script's TP 4 branch: 10 at every concurrency. (From 2026-06 the FP4 scripts set 1 with
//     data-parallel attention, which no mapped row runs.)
//   SGLang on H200, MI300X, MI325X, MI355X (dsr1_fp8_h200.sh, dsr1_fp8_mi3*.sh, dsr1_fp4_mi355x.sh,
//     _mtp): not set, SGLang's default 1.
//   TensorRT-LLM and vLLM: no such setting (1).
// The B200 rows of 2025-11 and 2025-12 predate that oldest script and are taken to follow it.
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// For a row already mapped to catalog model, system, engine, plan and concurrency; 1 for one
// the list above does not name.
int inferencex_recv_interval_steps(const MeasuredRun& r);

}  // namespace agentsim::calib
