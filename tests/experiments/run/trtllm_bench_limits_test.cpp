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

// Llama-3.3-70B as the perf overview ran it: ModelOpt's checkpoint, `weights` (FP4: NVFP4, an E4M3
// scale per 16) and an FP8 KV cache.
wl::ModelSpec bench_llama70b(hw::DType weights) {
  wl::ModelSpec m = load_catalog(kBenchRoot).models.get("llama-3.1-70b", core::SourceLocation{});
  m.precision.weights = weights;
  m.precision.weights_block = weights == hw::DType::kFp4 ? 16 : 0;
  m.precision.kv_cache = hw::DType::kFp8;
  m.sync_mirrors();
  return m;
}

// Qwen3-235B-A22B as ModelOpt's FP8 checkpoint with an FP8 KV cache.
wl::ModelSpec bench_qwen3_fp8() {
  wl::ModelSpec m = load_catalog(kBenchRoot).models.get("qwen3-235b-a22b", core::SourceLocation{});
  m.precision.weights = m.precision.experts = m.precision.kv_cache = hw::DType::kFp8;
  m.sync_mirrors();
  return m;
}

hw::System bench_system(const std::string& name) { return load_catalog(kBenchRoot).systems.get(name, core::SourceLocation{}); }

// B200 (183,359 MiB = 179.06 GiB), NVFP4, TP 1, 1024/1024, KV fraction 0.95: the checkpoint's
// elements are its 68.45e9 quantised layer weights at 9/16 (two FP4 to a U8, a scale per 16) plus
// 2.10e9 BF16 embedding and LM head, 40.61e9, at 0.5 B = 18.91 GiB; (179.06 - 18.91) x 0.95 =
// 152.14 GiB for KV at 2 x 80 layers x 8 heads x 128 x 1 B = 163,840 B a token, 2,048 tokens a
// request: 486.9 requests -> batch 512 (to 128 above 256); tokens 486.9 x 2 = 974 -> 2,048 (the
// floor). At 2048/2048, 243.4 requests -> 256; counting every weight as one element (70.55e9 x 0.5
// B, 32.85 GiB) would leave 222.2 -> 224.
TEST(TrtllmBenchLimits, LlamaOnB200MatchesTheHandComputation) {
  const TrtllmBenchLimits l = trtllm_bench_limits(bench_llama70b(hw::DType::kFp4), bench_system("hgx-b200"),
                                                  wl::parse_parallel_plan("tp=1"), 1024, 1024, 0.95);
  EXPECT_EQ(l.max_batch_size, 512);
  EXPECT_EQ(l.max_num_tokens, 2048);
  const TrtllmBenchLimits packed = trtllm_bench_limits(bench_llama70b(hw::DType::kFp4), bench_system("hgx-b200"),
                                                       wl::parse_parallel_plan("tp=1"), 2048, 2048, 0.95);
  EXPECT_EQ(packed.max_batch_size, 256);
  EXPECT_EQ(packed.max_num_tokens, 2048);
}

// An attention-DP MoE run takes the group's --tp: DEP4 on H200 (FP8, 235.09e9 elements = 218.94
// GiB) at 8192/1024: (4 x 140.38 - 218.94) x 0.95 = 325.43 GiB over 2 x 94 layers x max(4, 4) x
// 128 x 1 B = 96,256 B a token x 9,216 = 0.8262 GiB a request: 393.9 -> 512; tokens 393.9 x 9 =
// 3,545 -> 3,584. DEP8 on H100 (79.65 GiB each) at 1024/1024: the eight ranks outnumber the four KV
// heads, 2 x 94 x 8 x 128 B = 192,512 B a token; (637.18 - 218.94) x 0.95 = 397.33 GiB / 0.3672 GiB
// = 1,082.1 requests -> 1,280 (to 256 above 1,024); tokens 2,164 -> 2,304.
TEST(TrtllmBenchLimits, AttentionDpMoeRunsTakeTheGroupsTensorParallelDegree) {
  const TrtllmBenchLimits h200 =
      trtllm_bench_limits(bench_qwen3_fp8(), bench_system("hgx-h200"), wl::parse_parallel_plan("tp=1,ep=4,dp=4"), 8192, 1024, 0.95);
  EXPECT_EQ(h200.max_batch_size, 512);
  EXPECT_EQ(h200.max_num_tokens, 3584);
  const TrtllmBenchLimits h100 =
      trtllm_bench_limits(bench_qwen3_fp8(), bench_system("hgx-h100"), wl::parse_parallel_plan("tp=1,ep=8,dp=8"), 1024, 1024, 0.95);
  EXPECT_EQ(h100.max_batch_size, 1280);
  EXPECT_EQ(h100.max_num_tokens, 2304);
}

// An MXFP4 checkpoint (gpt-oss-120b's experts) is not among the tuned quantisations: the LLM API's
// defaults, whatever the lengths.
TEST(TrtllmBenchLimits, AnMxfp4CheckpointRunsTheDefaults) {
  const wl::ModelSpec oss = load_catalog(kBenchRoot).models.get("gpt-oss-120b", core::SourceLocation{});
  ASSERT_EQ(oss.precision.experts, hw::DType::kFp4);
  ASSERT_EQ(oss.precision.experts_block, 32);
  for (const long long isl : {1024LL, 32768LL}) {
    const TrtllmBenchLimits l =
        trtllm_bench_limits(oss, bench_system("hgx-b200"), wl::parse_parallel_plan("tp=1,ep=2,dp=2"), isl, 1024, 0.95);
    EXPECT_EQ(l.max_batch_size, 2048);
    EXPECT_EQ(l.max_num_tokens, 8192);
  }
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

// A latent-attention model (its settings depend on the release) is refused, as is a KV cache that
// holds no request.
TEST(TrtllmBenchLimits, RefusesWhatItDoesNotDescribe) {
  const Catalog c = load_catalog(kBenchRoot);
  const wl::ModelSpec r1 = c.models.get("deepseek-r1", core::SourceLocation{});
  try {
    trtllm_bench_limits(r1, bench_system("hgx-b200"), wl::parse_parallel_plan("tp=1,ep=4,dp=4"), 1024, 1024, 0.95);
    ADD_FAILURE() << "an MLA model was given settings";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("latent-attention"), std::string::npos) << e.what();
  }
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
