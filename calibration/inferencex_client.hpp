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

namespace agentsim::calib {

inline constexpr double kInferenceXRangeRatio = 0.8;
inline constexpr long long kInferenceXPromptsPerConcurrency = 10;

}  // namespace agentsim::calib
