#pragma once
// InferenceX's benchmark client (github.com/SemiAnalysisAI/InferenceX, utils/bench_serving/
// benchmark_serving.py, driven by the recipes under benchmarks/single_node/fixed_seq_len/), as its
// measured rows ran it:
// - Length spread: every request's prompt and output lengths are uniform integers in
//   [int(len x ratio), len] (sample_uniform: np.random.randint(int(seq_len * range_ratio),
//   seq_len + 1)), with `--random-range-ratio $RANDOM_RANGE_RATIO`, set to 0.8 in
//   .github/workflows/benchmark-tmpl.yml (a constant from 2025-08, the default of its
//   random-range-ratio input from 2026-01-21 to 2026-08). MeasuredRun::range_ratio.
// - A finite run: `--num-prompts $((CONC * 10)) --max-concurrency $CONC` (e.g. dsr1_fp8_b200.sh,
//   dsr1_fp4_b200.sh, dsr1_fp8_h200.sh): 10 x concurrency prompts, the first `concurrency` sent at
//   once, then one per completed answer; throughput is all tokens over the benchmark's duration,
//   so the opening burst and the final drain are in it. MeasuredRun::prompts.
// - Prefill/decode-disaggregated rows ran the multi-node recipes (benchmarks/multi_node/: AMD's
//   amd_utils/bench.sh, num_prompts = concurrency x 10 and at least 16, random_range_ratio 0.8;
//   NVIDIA's srt-slurm recipes, sa-bench with random_range_ratio 0.8, the same client): the same
//   length spread and prompt count, none of the single-node recipes' server settings below (their
//   servers' flags are not read: the engine's defaults) but the KV format their recipes state
//   (inferencex_kv_dtype.hpp: FP8 for SGLang + MoRI on MI355X).
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

inline constexpr double kInferenceXRangeRatio = 0.8;
inline constexpr long long kInferenceXPromptsPerConcurrency = 10;
inline constexpr long long kInferenceXDisaggregatedMinPrompts = 16;  // amd_utils/bench.sh

// An InferenceX row as its benchmark ran, for a row already mapped (model, system, engine, plan,
// precision, concurrency): its recipe's stream interval (inferencex_stream_interval.hpp), scheduler
// receive interval (inferencex_recv_interval.hpp), overlap scheduler (inferencex_overlap_scheduler.hpp),
// TensorRT-LLM context waits (inferencex_context_wait.hpp),
// batch limits (inferencex_batch_limits.hpp), draft tokens (inferencex_draft_tokens.hpp) and
// KV-cache format where the row's text names
// none (inferencex_kv_dtype.hpp), and the client's length spread and prompt count above. The one
// place every InferenceX adapter takes them from.
void apply_inferencex_run(MeasuredRun& r);

}  // namespace agentsim::calib
