// trtllm-bench's engine settings (max_batch_size, max_num_tokens) against hand computations of
// tensorrt_llm/bench/build/tuning.py's calc_engine_setting and finetune_setting, and a
// perf-overview row that runs with them.
#include "experiments/run/trtllm_bench_limits.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "calibration/measured_runs.hpp"
#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/validation_runner.hpp"
#include "sim/core/error.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::exp {
namespace {

const std::string kBenchRoot = AGENTSIM_SOURCE_DIR;

// Llama-3.3-70B as the perf overview ran it: ModelOpt's checkpoint, `weights` and an FP8 KV cache.
wl::ModelSpec bench_llama70b(hw::DType weights) {
  wl::ModelSpec m = load_catalog(kBenchRoot).models.get("llama-3.1-70b", core::SourceLocation{});
  m.precision.weights = weights;
  m.precision.kv_cache = hw::DType::kFp8;
  m.sync_mirrors();
  return m;
}

hw::System bench_system(const std::string& name) { return load_catalog(kBenchRoot).systems.get(name, core::SourceLocation{}); }

// B200 (183,359 MiB = 179.06 GiB), NVFP4, TP 1, 1024/1024, KV fraction 0.95: engine 70.55e9 x 0.5
// B = 32.85 GiB; (179.06 - 32.85) x 0.95 = 138.90 GiB for KV at 2 x 80 layers x 8 heads x 128 x 1 B
// = 163,840 B a token, 2,048 tokens a request: 444.5 requests -> batch 512 (to 128 above 256);
// tokens 444.5 x 2 = 889 -> 2,048 (the floor).
TEST(TrtllmBenchLimits, LlamaOnB200MatchesTheHandComputation) {
  const TrtllmBenchLimits l = trtllm_bench_limits(bench_llama70b(hw::DType::kFp4), bench_system("hgx-b200"),
                                                  wl::parse_parallel_plan("tp=1"), 1024, 1024, 0.95);
  EXPECT_EQ(l.max_batch_size, 512);
  EXPECT_EQ(l.max_num_tokens, 2048);
}

// H200 (143,745 MiB = 140.38 GiB) x TP 2, FP8, 8192/1024: (280.76 - 65.71) x 0.95 = 204.30 GiB over
// 1.4063 GiB a 9,216-token request = 145.3 requests -> 160 (to 32 below 256); tokens 145.3 x 9 =
// 1,308 -> 2,048. H100 (81,559 MiB) x TP 2, FP8, 1000/1000: 291.4 requests -> 384; 583 -> 2,048.
TEST(TrtllmBenchLimits, HopperTp2MatchesTheHandComputation) {
  const wl::ParallelPlan tp2 = wl::parse_parallel_plan("tp=2");
  const TrtllmBenchLimits h200 = trtllm_bench_limits(bench_llama70b(hw::DType::kFp8), bench_system("hgx-h200"), tp2, 8192, 1024, 0.95);
  EXPECT_EQ(h200.max_batch_size, 160);
  EXPECT_EQ(h200.max_num_tokens, 2048);
  const TrtllmBenchLimits h100 = trtllm_bench_limits(bench_llama70b(hw::DType::kFp8), bench_system("hgx-h100"), tp2, 1000, 1000, 0.95);
  EXPECT_EQ(h100.max_batch_size, 384);
  EXPECT_EQ(h100.max_num_tokens, 2048);
  // Long requests: 32768/1024 on B200 is 138.90 / (1.526e-4 x 33,792) = 26.9 requests -> batch 64
  // (the floor); tokens 26.9 x 33 = 889 -> 2,048 (requests x (isl + osl) / osl does not depend on isl).
  const TrtllmBenchLimits long_prompt =
      trtllm_bench_limits(bench_llama70b(hw::DType::kFp4), bench_system("hgx-b200"), wl::parse_parallel_plan("tp=1"), 32768, 1024, 0.95);
  EXPECT_EQ(long_prompt.max_batch_size, 64);
  EXPECT_EQ(long_prompt.max_num_tokens, 2048);
}

// The heuristic is the dense, non-attention-DP one: an MoE model or an attention-DP plan is refused,
// as is a KV cache that holds no request.
TEST(TrtllmBenchLimits, RefusesWhatItDoesNotDescribe) {
  const Catalog c = load_catalog(kBenchRoot);
  const wl::ModelSpec r1 = c.models.get("deepseek-r1", core::SourceLocation{});
  EXPECT_THROW(trtllm_bench_limits(r1, bench_system("hgx-b200"), wl::parse_parallel_plan("tp=8"), 1024, 1024, 0.95),
               core::Error);
  EXPECT_THROW(trtllm_bench_limits(bench_llama70b(hw::DType::kFp8), bench_system("hgx-h200"), wl::parse_parallel_plan("dp=2"),
                                   1024, 1024, 0.95),
               core::Error);
  EXPECT_THROW(trtllm_bench_limits(bench_llama70b(hw::DType::kBf16), bench_system("hgx-h100"), wl::parse_parallel_plan("tp=1"),
                                   1024, 1024, 0.95),
               core::Error);  // 131 GiB of BF16 weights on one 80 GB GPU
}

// A perf-overview row (trtllm_bench, no stated limits) runs with the heuristic's limits.
TEST(TrtllmBenchLimits, APerfOverviewRowRunsWithThem) {
  calib::MeasuredRun r;
  for (double& m : r.metrics) m = std::numeric_limits<double>::quiet_NaN();
  r.metrics[calib::measured_metric_index("output_tok_s_per_gpu")] = 6842;
  r.id = "TRTPO:42";
  r.file = "perf.csv";
  r.system = "hgx-b200";
  r.model = "llama-3.1-70b";
  r.plan = "tp=1,ep=1";
  r.gpus = 1;
  r.isl = r.osl = 1024;
  r.engine = "trtllm";
  r.weights_dtype = "nvfp4";
  r.kv_dtype = "fp8";
  r.prompts = 3000;
  r.concurrency = 3000;
  r.kv_free_memory_fraction = 0.95;
  r.trtllm_bench = true;
  const PreparedRows rows = prepare_rows(load_experiment(kBenchRoot + "/experiments/validation/validate.yaml", kBenchRoot),
                                         load_catalog(kBenchRoot), {r}, {});
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(rows.rows[0].experiment.serving.max_sequences, 512);
  EXPECT_EQ(rows.rows[0].experiment.serving.max_batch_tokens, 2048);
  EXPECT_EQ(rows.rows[0].experiment.workload.session_limit, 3000);
}

}  // namespace
}  // namespace agentsim::exp
