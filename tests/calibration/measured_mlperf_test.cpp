// The MLPerf Inference results adapter: rows of the vendored v5.1 extract map to the catalog
// model, system, request lengths, engine, precision and scenario (values from the CSV lines
// quoted below), Server rows carry their log summary's latency limits, power rows their wall
// power, and rows that cannot run get their reason.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "calibration/measured_sources.hpp"
#include "sim/core/error.hpp"
#include "tests/calibration/measured_metric.hpp"

namespace agentsim::calib {
namespace {

const std::string kSet = std::string(AGENTSIM_SOURCE_DIR) + "/experiments/validation/measured/mlperf-inference-v5.1";


const MeasuredRun* run(const MeasuredSet& s, const std::string& id) {
  for (const auto& r : s.runs) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

// llm_datacenter_results.csv's header row.
const std::string kResultsHeader =
    "ID,Submitter,Category,Suite,System,Platform,Model,Scenario,Nodes,a#,Accelerator,Processor,Software,"
    "weight_data_types,Performance_Result,Performance_Units,Power_Result,Power_Units,Accuracy,Location,"
    "total_accelerators,tokens_per_s_per_accelerator\n";

// Only the harness configs beside the results.
MlperfSideFiles with_configs(std::istream& configs) {
  MlperfSideFiles side;
  side.configs = &configs;
  side.configs_file = "harness_configs.csv";
  return side;
}

// Only the answer lengths beside the results.
MlperfSideFiles with_answers(std::istream& answers) {
  MlperfSideFiles side;
  side.answers = &answers;
  side.answers_file = "answer_lengths.csv";
  return side;
}

const SkippedRow* skipped(const MeasuredSet& s, const std::string& id) {
  for (const auto& r : s.skipped) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

TEST(MeasuredMlperf, OfflineRowMapsToModelSystemLengthsEngineAndScenario) {
  const MeasuredSet s = load_measured(kSet);
  // 5.1-0001,AMD,closed,...,llama2-70b-99,Offline,1,8,AMD Instinct MI300X 192GB HBM3,...,"vLLM 0.9.0.2...",
  // fp8,27803.9,Tokens/s,,,ROUGE1: 44.4465 ... TOKENS_PER_SAMPLE: 301.1,...,8,3475.49
  const MeasuredRun* r = run(s, "5.1-0001:llama2-70b-99:Offline");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->model, "llama-3.1-70b");  // Llama 2 70B's dimensions (mlperf_csv.cpp)
  EXPECT_EQ(r->system, "mi300x-8");
  EXPECT_EQ(r->gpus, 8);
  EXPECT_EQ(r->engine, "vllm");
  EXPECT_EQ(r->scenario, "offline");
  EXPECT_EQ(r->isl, 300);
  EXPECT_EQ(r->osl, 301);  // the row's own accuracy run: 301.1 tokens per sample
  EXPECT_EQ(r->weights_dtype, "fp8");
  EXPECT_EQ(r->kv_dtype, "fp8");
  EXPECT_TRUE(r->plan_smallest_fit);
  EXPECT_FALSE(r->trtllm_bench);
  EXPECT_NEAR(test::metric_of(*r, "output_tok_s_per_gpu"), 27803.9 / 8, 1e-9);
  EXPECT_TRUE(std::isnan(test::metric_of(*r, "wall_power_w_per_gpu")));
}

TEST(MeasuredMlperf, AmdHarnessRowsRunItsLimitsWithReserveAdmission) {
  const MeasuredSet s = load_measured(kSet);
  // Software "vLLM 0.9.0.2.dev108+...": AMD's harness, one engine per GPU at its configs' limits.
  const MeasuredRun* mi300x = run(s, "5.1-0001:llama2-70b-99:Offline");
  ASSERT_NE(mi300x, nullptr);
  EXPECT_EQ(mi300x->max_sequences, 1792);
  EXPECT_EQ(mi300x->max_batch_tokens, 40960);
  EXPECT_DOUBLE_EQ(mi300x->memory_fraction, 0.98);
  EXPECT_EQ(mi300x->admission, "reserve");
  // A partner's submission on AMD's older harness build ("vLLM 0.6.5.dev964+mlperf50"), MI325X.
  const MeasuredRun* mi325x = run(s, "5.1-0006:llama2-70b-99:Server");
  ASSERT_NE(mi325x, nullptr);
  EXPECT_EQ(mi325x->max_sequences, 2700);
  EXPECT_EQ(mi325x->max_batch_tokens, 65536);
  EXPECT_EQ(mi325x->admission, "reserve");
  // MangoBoost's LLMBoost platform wraps the same vLLM build in its own serving: the base limits.
  const MeasuredRun* mango = run(s, "5.1-0030:llama2-70b-99:Offline");
  ASSERT_NE(mango, nullptr);
  EXPECT_EQ(mango->engine, "vllm");
  EXPECT_EQ(mango->max_sequences, 0);
  EXPECT_EQ(mango->admission, "");
  // NVIDIA's TensorRT-LLM rows keep the base experiment's admission.
  const MeasuredRun* nvidia = run(s, "5.1-0024:llama2-70b-99:Offline");
  ASSERT_NE(nvidia, nullptr);
  EXPECT_EQ(nvidia->admission, "");
}

TEST(MeasuredMlperf, ServerRowCarriesItsLogSummaryLimitsAndPowerRowItsWallPower) {
  const MeasuredSet s = load_measured(kSet);
  // llm_log_summaries.csv: closed,AMD,8xMI300X_2xEPYC_9575F,llama2-70b-99,Server,...,2000000000,200000000,
  // closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt
  const MeasuredRun* server = run(s, "5.1-0001:llama2-70b-99:Server");
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->scenario, "server");
  EXPECT_DOUBLE_EQ(server->ttft_p99_limit_s, 2.0);
  EXPECT_DOUBLE_EQ(server->tpot_p99_limit_s, 0.2);
  EXPECT_NEAR(test::metric_of(*server, "output_tok_s_per_gpu"), 24593.8 / 8, 1e-9);
  // 5.1-0061,Lenovo,...,llama2-70b-99,Offline,1,8,NVIDIA B200-SXM-180GB,...,"TensorRT 10.8, CUDA 12.8",fp4,
  // 102909.0,Tokens/s,10400.9988793425,Watts,...
  const MeasuredRun* power = run(s, "5.1-0061:llama2-70b-99:Offline");
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->system, "hgx-b200");
  EXPECT_EQ(power->engine, "trtllm");  // NVIDIA's "TensorRT" LLM harness is TensorRT-LLM
  EXPECT_FALSE(power->trtllm_bench);    // its submitter's harness config states the limits
  EXPECT_EQ(power->experts_dtype, "nvfp4");
  EXPECT_NEAR(test::metric_of(*power, "wall_power_w_per_gpu"), 10400.9988793425 / 8, 1e-9);
  // Its 99.9 twin reports the same 102909.0 tokens/s: the same run, listed once.
  const SkippedRow* twin = skipped(s, "5.1-0061:llama2-70b-99.9:Offline");
  ASSERT_NE(twin, nullptr);
  EXPECT_NE(twin->reason.find("the same run as '5.1-0061:llama2-70b-99:Offline'"), std::string::npos) << twin->reason;
}

TEST(MeasuredMlperf, TensorRtRowsRunTheirSubmittersHarnessConfig) {
  const MeasuredSet s = load_measured(kSet);
  // harness_configs.csv: closed/NVIDIA/configs/B200-SXM-180GBx8/Offline/deepseek-r1.py: tensor_parallelism 8,
  // moe_expert_parallelism 8, enable_attention_dp True, gpu_batch_size 512, max_num_tokens 4608,
  // kvcache_free_gpu_mem_frac 0.9, adp_balancing_timeout_iters 500 (Server: 3456 tokens, 9 iterations).
  const MeasuredRun* r1 = run(s, "5.1-0069:deepseek-r1:Offline");
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->plan, "tp=1,ep=8,dp=8");  // attention DP over the 8 ranks, experts over 8 (canonical_plan)
  EXPECT_FALSE(r1->plan_smallest_fit);
  EXPECT_FALSE(r1->trtllm_bench);
  EXPECT_EQ(r1->max_sequences, 512);
  EXPECT_EQ(r1->max_batch_tokens, 4608);
  EXPECT_DOUBLE_EQ(r1->kv_free_memory_fraction, 0.9);
  EXPECT_EQ(r1->balance_timeout_steps, 500);
  const MeasuredRun* r1_server = run(s, "5.1-0069:deepseek-r1:Server");
  ASSERT_NE(r1_server, nullptr);
  EXPECT_EQ(r1_server->max_batch_tokens, 3456);
  EXPECT_EQ(r1_server->balance_timeout_steps, 9);
  // .../Offline/llama3_1-8b.py: tensor_parallelism 1, gpu_batch_size 6000, max_num_tokens 12000: one
  // replica per GPU, no attention DP (its balance timeout does not apply).
  const MeasuredRun* dense = run(s, "5.1-0069:llama3.1-8b:Offline");
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->plan, "tp=1,ep=1");
  EXPECT_EQ(dense->max_sequences, 6000);
  EXPECT_EQ(dense->max_batch_tokens, 12000);
  EXPECT_EQ(dense->balance_timeout_steps, 0);
  // Cisco's C885 submission has no llama3_1-8b config in the results repository: trtllm-bench's
  // heuristic and the smallest fitting plan stand in.
  const MeasuredRun* stand_in = run(s, "5.1-0014:llama3.1-8b:Offline");
  ASSERT_NE(stand_in, nullptr);
  EXPECT_TRUE(stand_in->trtllm_bench);
  EXPECT_TRUE(stand_in->plan_smallest_fit);
  EXPECT_EQ(stand_in->max_sequences, 0);
}

TEST(MeasuredMlperf, DeepSeekR1RowsDrawTheirAnswersFromTheMeasuredSpread) {
  // answer_lengths.csv: 1,700 answers of the DeepSeek-R1 results' TEST06 accuracy logs; sorted,
  // the 850th and 851st are 1,825 tokens, the 90th percentile (linear) 9,079.5, the longest 20,001.
  const MeasuredSet s = load_measured(kSet);
  const MeasuredRun* r1 = run(s, "5.1-0069:deepseek-r1:Server");
  ASSERT_NE(r1, nullptr);
  EXPECT_DOUBLE_EQ(r1->osl_median, 1825);
  EXPECT_NEAR(r1->osl_p90, 9079.5, 1e-6);
  EXPECT_EQ(r1->osl_max, 20001);
  // Its mean stays the row's accuracy run's TOKENS_PER_SAMPLE; a benchmark without measured
  // answers keeps every answer at its mean.
  EXPECT_GT(r1->osl, 3000);
  const MeasuredRun* llama = run(s, "5.1-0069:llama3.1-8b:Offline");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->osl_max, 0);
  EXPECT_EQ(llama->osl_median, 0);
}

TEST(MeasuredMlperf, AnswerLengthsWithABadValueAreAnErrorNamingFileLineAndColumn) {
  const std::string header = kResultsHeader;
  const std::string row =
      "X-1,S,closed,datacenter,Sys,P,deepseek-r1,Offline,1,8,NVIDIA B200-SXM-180GB,CPU,\"TensorRT 10.11\",fp4,"
      "8000,Tokens/s,,,exact_match: 81  TOKENS_PER_SAMPLE: 3700.0,loc/x,8,1000\n";
  const std::string answers_header = "location,qsl_idx,output_tokens\n";
  const std::string where = "closed/S/compliance/Sys/deepseek-r1/Offline";
  {
    std::istringstream in(header + row),
        answers(answers_header + where + ",1,100\n" + where + ",2,300\n" + where + ",3,200\n");
    const MeasuredFile f = read_mlperf_results(in, "results.csv", with_answers(answers));
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_DOUBLE_EQ(f.runs[0].osl_median, 200);
    EXPECT_DOUBLE_EQ(f.runs[0].osl_p90, 280);
    EXPECT_EQ(f.runs[0].osl_max, 300);
    EXPECT_EQ(f.runs[0].osl, 3700);
  }
  for (const std::string& bad : {where + ",1,0\n", where + ",1,12.5\n", std::string("closed/S/results/Sys/deepseek-r1/Offline,1,100\n")}) {
    std::istringstream in(header + row), answers(answers_header + bad);
    try {
      read_mlperf_results(in, "results.csv", with_answers(answers));
      FAIL() << "a bad answer length must be an error: " << bad;
    } catch (const core::Error& e) {
      EXPECT_NE(std::string(e.what()).find("answer_lengths.csv:2"), std::string::npos) << e.what();
    }
  }
}

TEST(MeasuredMlperf, HarnessConfigsWithABadValueAreAnErrorNamingFileLineAndColumn) {
  const std::string header = kResultsHeader;
  const std::string configs_header =
      "location,config,tensor_parallelism,pipeline_parallelism,moe_expert_parallelism,enable_attention_dp,"
      "gpu_batch_size,max_num_tokens,kvcache_free_gpu_mem_frac,enable_chunked_context,cuda_graph_max_batch,"
      "adp_balancing_batching_wait_iters,adp_balancing_timeout_iters\n";
  const std::string row =
      "X-1,S,closed,datacenter,Sys,P,llama3.1-8b,Offline,1,8,NVIDIA H200-SXM-141GB,CPU,\"TensorRT 10.11\",fp8,"
      "8000,Tokens/s,,,ROUGE1: 38,loc/x,8,1000\n";
  {
    std::istringstream in(header + row), configs(configs_header + "loc/x,c.py,2,1,,false,1024,4096,0.9,true,,,\n");
    const MeasuredFile f = read_mlperf_results(in, "results.csv", with_configs(configs));
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_EQ(f.runs[0].plan, "tp=2,ep=1");
    EXPECT_EQ(f.runs[0].max_sequences, 1024);
    EXPECT_EQ(f.runs[0].max_batch_tokens, 4096);
  }
  for (const std::string& bad : {std::string("loc/x,c.py,0,1,,false,1024,4096,0.9,true,,,\n"),
                                 std::string("loc/x,c.py,2,1,,yes,1024,4096,0.9,true,,,\n"),
                                 std::string("loc/x,c.py,2,1,,false,1024,4096,1.5,true,,,\n")}) {
    std::istringstream in(header + row), configs(configs_header + bad);
    try {
      read_mlperf_results(in, "results.csv", with_configs(configs));
      FAIL() << "a bad harness config must be an error: " << bad;
    } catch (const core::Error& e) {
      EXPECT_NE(std::string(e.what()).find("harness_configs.csv:2"), std::string::npos) << e.what();
    }
  }
  // Two configs for one result: the second is refused where it stands.
  const std::string ok = "loc/x,c.py,2,1,,false,1024,4096,0.9,true,,,\n";
  std::istringstream in(header + row), configs(configs_header + ok + ok);
  try {
    read_mlperf_results(in, "results.csv", with_configs(configs));
    FAIL() << "a second config for one result must be an error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("harness_configs.csv:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a second config"), std::string::npos) << e.what();
  }
}

TEST(MeasuredMlperf, UnmappableRowsGetTheirReason) {
  const MeasuredSet s = load_measured(kSet);
  const SkippedRow* mixtral = skipped(s, "5.1-0001:mixtral-8x7b:Offline");
  ASSERT_NE(mixtral, nullptr);
  EXPECT_EQ(mixtral->reason, "benchmark 'mixtral-8x7b' has no catalog model");
  // Every result is either mapped or skipped with a reason; the log summaries add no rows.
  int results = 0;
  for (const auto& f : s.files) {
    if (f.schema == "mlperf-inference") results += f.rows;
    if (f.schema == "mlperf-log-summaries" || f.schema == "mlperf-harness-configs") {
      EXPECT_EQ(f.rows, 0);
    }
  }
  EXPECT_EQ(results, 338);  // PROVENANCE.md: 338 data rows
  EXPECT_EQ(static_cast<int>(s.runs.size() + s.skipped.size()), results);
  for (const auto& r : s.skipped) EXPECT_FALSE(r.reason.empty()) << r.id;
  EXPECT_GT(s.runs.size(), 100u);
}

TEST(MeasuredMlperf, InlineRowsWithoutLogsOrWithUnknownColumns) {
  const std::string header = kResultsHeader;
  std::istringstream in(header +
                        "X-1,S,closed,datacenter,Sys,P,llama3.1-8b,Server,1,8,NVIDIA H200-SXM-141GB,CPU,\"vLLM 0.10\",fp8,"
                        "8000,Tokens/s,,,ROUGE1: 38,loc/x,8,1000\n"
                        "X-2,S,closed,datacenter,Sys,P,llama3.1-8b,Offline,1,8,NVIDIA L40S,CPU,\"vLLM 0.10\",fp8,"
                        "8000,Tokens/s,,,ROUGE1: 38,loc/y,8,1000\n"
                        "X-3,S,closed,datacenter,Sys,P,llama3.1-8b,Offline,1,8,NVIDIA H200-SXM-141GB,CPU,PyTorch,fp8,"
                        "8000,Tokens/s,,,ROUGE1: 38,loc/z,8,1000\n");
  const MeasuredFile f = read_mlperf_results(in, "results.csv");
  ASSERT_EQ(f.skipped.size(), 3u);
  EXPECT_NE(f.skipped[0].reason.find("no log summary with the Server latency limits"), std::string::npos);
  EXPECT_EQ(f.skipped[1].reason, "accelerator 'NVIDIA L40S' has no catalog system");
  EXPECT_NE(f.skipped[2].reason.find("software 'PyTorch'"), std::string::npos);
  std::istringstream bad(header.substr(0, header.size() - 1) + ",extra\n");
  try {
    read_mlperf_results(bad, "results.csv");
    FAIL() << "an unknown column must be an error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("results.csv:1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("extra"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace agentsim::calib
