#pragma once
// The length spread of InferenceX's client: every request's prompt and output lengths are
// uniform integers in [int(len x ratio), len] (utils/bench_serving/benchmark_serving.py,
// sample_uniform: np.random.randint(int(seq_len * range_ratio), seq_len + 1)), with
// `--random-range-ratio $RANDOM_RANGE_RATIO`, set to 0.8 in .github/workflows/benchmark-tmpl.yml
// (a constant from 2025-08, the default of its random-range-ratio input from 2026-01-21 to
// 2026-08; github.com/SemiAnalysisAI/InferenceX). MeasuredRun::range_ratio of InferenceX rows.

namespace agentsim::calib {

inline constexpr double kInferenceXRangeRatio = 0.8;

}  // namespace agentsim::calib
