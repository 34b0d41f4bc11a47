// The measured-run adapters: each schema maps a hand-checked row (values from the CSV
// line quoted in the test), unmappable rows are skipped with their reason, an unknown
// column is an error naming file, line and column, and a directory reads every CSV
// below it with duplicates reported.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "calibration/inferencex_batch_limits.hpp"
#include "calibration/inferencex_disagg_drafts.hpp"
#include "calibration/inferencex_client.hpp"
#include "calibration/inferencex_context_wait.hpp"
#include "calibration/inferencex_disagg_limits.hpp"
#include "calibration/inferencex_draft_tokens.hpp"
#include "calibration/inferencex_expert_exchange.hpp"
#include "calibration/inferencex_kv_dtype.hpp"
#include "calibration/inferencex_moe_backend.hpp"
#include "calibration/inferencex_overlap_scheduler.hpp"
#include "calibration/inferencex_recv_interval.hpp"
#include "calibration/inferencex_stream_interval.hpp"
#include "calibration/measured_names.hpp"
#include "calibration/measured_sources.hpp"
#include "sim/core/error.hpp"
#include "tests/calibration/measured_metric.hpp"

namespace agentsim::calib {
namespace {

const std::string kDir = std::string(AGENTSIM_SOURCE_DIR) + "/tests/calibration/fixtures/measured";

// The shipped serving-points-2 file as the loader maps it (read once), and one of its rows by id.
const MeasuredSet& shipped_serving_points_2() {
  static const MeasuredSet set = load_measured(std::string(AGENTSIM_SOURCE_DIR) +
                                               "/experiments/validation/measured/serving-points-2/serving_points.csv");
  return set;
}
const MeasuredRun* shipped_row(const std::string& id) {
  for (const MeasuredRun& r : shipped_serving_points_2().runs) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const MeasuredRun* find(const std::vector<MeasuredRun>& runs, int line) {
  for (const auto& r : runs) {
    if (r.line == line) return &r;
  }
  return nullptr;
}

TEST(MeasuredNames, MapTextToCatalogNamesAndPlans) {
  EXPECT_EQ(map_model("DeepSeek-R1-0528").value, "deepseek-r1");
  EXPECT_EQ(map_model("DeepSeek-R1-0528 (FP4-V2)").value, "deepseek-r1");
  EXPECT_EQ(map_model("GPT-OSS-120B").value, "gpt-oss-120b");
  EXPECT_EQ(map_model("Llama-3.3-70B").value, "llama-3.1-70b");
  EXPECT_FALSE(map_model("DeepSeek-V3/R1").ok());
  EXPECT_FALSE(map_model("Llama-4-Maverick").ok());
  EXPECT_EQ(map_hardware("GB200").value, "gb200-nvl72");
  EXPECT_EQ(map_hardware("MI355X").value, "mi355x-8");
  EXPECT_FALSE(map_hardware("H800").ok());
  EXPECT_EQ(map_plan("TP8 EP1").value, "tp=8,ep=1");
  EXPECT_EQ(map_plan("TP4").value, "tp=4,ep=1");
  EXPECT_EQ(map_plan("TP8 EP8 DPA").value, "tp=1,ep=8,dp=8");
  EXPECT_EQ(map_plan("DEP4").value, "tp=1,ep=4,dp=4");
  EXPECT_EQ(map_plan("TP8 EP8, attention DP, max_batch_size 896, max_num_tokens 2048").value, "tp=1,ep=8,dp=8");
  EXPECT_EQ(map_plan("TP8 EP2, moe_backend TRTLLM, max_batch_size 1").value, "tp=8,ep=2");
  EXPECT_EQ(canonical_plan("tp=1"), "tp=1,ep=1");
  // A run without an all-to-all is another measurement than one with it: its spelling keeps a2a=0.
  EXPECT_EQ(canonical_plan("dp=16,ep=16,a2a=0"), "tp=1,ep=16,dp=16,a2a=0");
  EXPECT_EQ(canonical_plan("dp=16,ep=16,a2a=1"), "tp=1,ep=16,dp=16");
  const PlanDegrees dep4 = plan_degrees(map_plan("DEP4").value);
  EXPECT_EQ(dep4.tp, 1);
  EXPECT_EQ(dep4.ep, 4);
  EXPECT_EQ(dep4.dp, 4);
  EXPECT_EQ(dep4.pp, 1);
  EXPECT_NE(map_plan("disagg P 1x(TP8 EP1) + D 2x(TP8 EP1)").reason.find("disaggregated"), std::string::npos);
  // Attention and experts stated apart: the experts' split (TP4 x EP2 = 8) or the benchmark's --tp 8 --ep 4.
  EXPECT_EQ(map_plan("TP8 attention, MoE TP4 EP2").value, "tp=8,ep=2");
  EXPECT_EQ(map_plan("TP8 attention; MoE mixed TP/EP (TP8 EP4 at this stage)").value, "tp=8,ep=4");
  EXPECT_NE(map_plan("TP8 attention, MoE TP4 EP4").reason.find("neither a split of TP8 nor its EP"), std::string::npos);
  EXPECT_NE(map_plan("TP8 attention, MoE TP1 EP3").reason.find("neither"), std::string::npos);  // 8 % 3 != 0
  EXPECT_NE(map_plan("TP8 attention; MoE EP/TP varies by step (see notes)").reason.find("not stated"),
            std::string::npos);
  EXPECT_EQ(stated_draft_tokens("MTP nextn=2 (autoregressive MTP, strict acceptance)"), 2);
  EXPECT_EQ(stated_draft_tokens("MTP NextN = 3"), 3);
  EXPECT_EQ(stated_draft_tokens("MTP"), 0);
  EXPECT_EQ(map_engine("lmsysorg/sglang:v0.5.12-cu130").value, "sglang");
  EXPECT_EQ(map_engine("nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc14").value, "trtllm");
  EXPECT_EQ(map_engine("vLLM v0.17.0 (ROCm)").value, "vllm");
  EXPECT_EQ(map_engine("AMD ATOM (image not recorded in fixture row)").value, "atom");
  EXPECT_EQ(map_engine("rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511").value, "atom");
  EXPECT_FALSE(map_engine("Anatomy Serve 1.0").ok());  // "atom" inside a word is not the engine
  EXPECT_NE(map_engine("Anatomy Serve 1.0").reason.find(std::string(kHostModelEngines)), std::string::npos);
  EXPECT_TRUE(id_names_framework("IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d2x16e1-c8", "dynamo-sglang"));
  EXPECT_TRUE(id_names_framework("IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d2x16e1-c8", "dynamo"));
  EXPECT_FALSE(id_names_framework("IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d2x16e1-c8", "dynamo-trt"));
  EXPECT_FALSE(id_names_framework("IXF-b200-sglang-fp8-none-agg-1k1k-tp8ep1-c4", "sglang-disagg"));
  EXPECT_EQ(map_speculative("none").value, "0");
  EXPECT_EQ(map_speculative("MTP").value, "1");
  EXPECT_FALSE(map_speculative("Eagle3").ok());
  const Precision p = map_precision("NVFP4, FP8 KV cache");
  EXPECT_EQ(p.experts, "nvfp4");
  EXPECT_EQ(map_precision("MXFP4").experts, "mxfp4");
  EXPECT_EQ(map_precision("FP4 (per run title)").experts, "fp4") << "the model card's FP4 scaling";
  EXPECT_TRUE(is_fp4_format("nvfp4") && is_fp4_format("mxfp4") && is_fp4_format("fp4"));
  EXPECT_FALSE(is_fp4_format("fp8"));
  EXPECT_EQ(p.weights, "");
  EXPECT_EQ(p.kv, "fp8");
  EXPECT_EQ(map_precision("FP8").weights, "fp8");
  EXPECT_FALSE(map_precision("INT4 (native W4A16 checkpoint)").reason.empty());
}

// serving-points/serving_points.csv line 2:
// IX870,DeepSeek-R1-0528,H200,8,SGLang v0.5.7,FP8,TP8 EP1,1024,1024,8,148.6,74.6,330.6,1975.4,12.8,,14.3,12.22,...
TEST(MeasuredSources, ServingPointsRow) {
  const std::string file = kDir + "/serving-points/serving_points.csv";
  const MeasuredSet set = load_measured(file);
  ASSERT_EQ(set.files.size(), 1u);
  EXPECT_EQ(set.files[0].schema, "serving-points");
  EXPECT_EQ(set.files[0].rows, 3);
  const MeasuredRun* r = find(set.runs, 2);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->model, "deepseek-r1");
  EXPECT_EQ(r->system, "hgx-h200");
  EXPECT_EQ(r->plan, "tp=8,ep=1");
  EXPECT_EQ(r->engine, "sglang");
  EXPECT_EQ(r->gpus, 8);
  EXPECT_EQ(r->isl, 1024);
  EXPECT_EQ(r->osl, 1024);
  EXPECT_EQ(r->concurrency, 8);
  EXPECT_FALSE(r->speculative);
  EXPECT_EQ(r->weights_dtype, "fp8");
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "output_tok_s_per_gpu"), 74.6);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "total_tok_s_per_gpu"), 148.6);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "ttft_s_mean"), 0.3306);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "tpot_s_mean"), 0.0128);
  EXPECT_TRUE(std::isnan(test::metric_of(*r, "tpot_s_median")));
  EXPECT_EQ(r->stream_interval_tokens, 10);  // InferenceX (IX870), SGLang on H200: dsr1_fp8_h200.sh's interval
  EXPECT_DOUBLE_EQ(r->range_ratio, 0.8);     // and its client's --random-range-ratio
  EXPECT_EQ(r->prompts, 80);                 // and its --num-prompts, 10 x concurrency
  EXPECT_EQ(r->kv_dtype, "");                // and its KV format: dsr1_fp8_h200.sh sets none (BF16)
  // Line 4 (IX828, isl "see notes") is skipped with its reason.
  ASSERT_EQ(set.skipped.size(), 1u);
  EXPECT_EQ(set.skipped[0].line, 4);
  EXPECT_NE(set.skipped[0].reason.find("isl"), std::string::npos) << set.skipped[0].reason;
}

// serving-points-2/serving_points.csv line 4 (vendored line 328):
// IXF-h200-sglang-fp8-mtp-agg-1k1k-tp8ep1-c16,...,lmsysorg/sglang:v0.5.12-cu130,hgx-h200,8,DeepSeek-R1-0528,FP8,TP8 EP1,
// 1024,1024,16,119.76,240.795,60.841,0.32327,0.21237,0.015929,0.016436,MTP,,,...
TEST(MeasuredSources, ServingPoints2RowsAndSkips) {
  const MeasuredSet set = load_measured(kDir + "/serving-points-2/serving_points.csv");
  EXPECT_EQ(set.files.at(0).schema, "serving-points-2");
  EXPECT_EQ(set.rows(), 4);
  const MeasuredRun* r = find(set.runs, 4);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->id, "IXF-h200-sglang-fp8-mtp-agg-1k1k-tp8ep1-c16");
  EXPECT_EQ(r->model, "deepseek-r1");
  EXPECT_EQ(r->system, "hgx-h200");
  EXPECT_EQ(r->plan, "tp=8,ep=1");
  EXPECT_EQ(r->engine, "sglang");
  EXPECT_TRUE(r->speculative);
  EXPECT_EQ(r->concurrency, 16);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "output_tok_s_per_gpu"), 119.76);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "total_tok_s_per_gpu"), 240.795);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "agent_output_tok_s"), 60.841);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "ttft_s_mean"), 0.32327);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "ttft_s_median"), 0.21237);  // the ttft_s_p50 column
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "tpot_s_mean"), 0.015929);
  EXPECT_DOUBLE_EQ(test::metric_of(*r, "tpot_s_median"), 0.016436);
  // Line 2: TensorRT-LLM, NVFP4 experts, TP4 EP1 on 4 GPUs.
  const MeasuredRun* t = find(set.runs, 2);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->engine, "trtllm");
  EXPECT_EQ(t->experts_dtype, "nvfp4");
  EXPECT_EQ(t->plan, "tp=4,ep=1");
  EXPECT_EQ(t->gpus, 4);
  // Both are InferenceX runs: dsr1_fp8_h200.sh and dsr1_fp4_b200_trt.sh stream 10 tokens a chunk.
  EXPECT_EQ(r->stream_interval_tokens, 10);
  EXPECT_EQ(t->stream_interval_tokens, 10);
  EXPECT_DOUBLE_EQ(r->range_ratio, 0.8);
  EXPECT_DOUBLE_EQ(t->range_ratio, 0.8);
  EXPECT_EQ(r->prompts, 160);  // a finite run of 10 x concurrency prompts
  EXPECT_EQ(t->prompts, 10 * static_cast<long long>(t->concurrency));
  // The recipes' KV format: TensorRT-LLM's kv_cache_config dtype fp8; SGLang on H200 sets none.
  EXPECT_EQ(t->kv_dtype, "fp8");
  EXPECT_EQ(r->kv_dtype, "");
  // Line 3: "disagg P 1x(TP8 EP1) + D 9x(TP8 EP1)" on 80 GPUs, one prefill and nine decode replicas
  // of TP8 EP1, at concurrency 1: a multi-node run, so the client's spread and prompt count (at least
  // 16, amd_utils/bench.sh) but none of the single-node recipes' settings (stream interval 1).
  const MeasuredRun* d = find(set.runs, 3);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->plan, "tp=8,ep=1");
  EXPECT_EQ(d->prefill_replicas, 1);
  EXPECT_EQ(d->decode_replicas, 9);
  EXPECT_EQ(d->gpus, 80);
  EXPECT_EQ(d->engine, "sglang");
  EXPECT_DOUBLE_EQ(d->range_ratio, 0.8);
  EXPECT_EQ(d->prompts, 16);
  EXPECT_EQ(d->stream_interval_tokens, 1);
  EXPECT_EQ(d->max_batch_tokens, 0);
  EXPECT_EQ(d->kv_dtype, "");  // Dynamo + SGLang on H200: its multi-node recipe's format is not read
  EXPECT_EQ(r->prefill_replicas, 0);  // a unified row
  // Line 5 (system other) is skipped with its reason.
  ASSERT_EQ(set.skipped.size(), 1u);
  EXPECT_EQ(set.skipped[0].line, 5);
  EXPECT_NE(set.skipped[0].reason.find("has no catalog entry"), std::string::npos) << set.skipped[0].reason;
}

// A disaggregated plan maps each role's plan (the decode replicas' as `plan`) and the replica
// counts; other forms are unmapped with their reason.
TEST(MeasuredNames, DisaggregatedPlans) {
  const DisaggregatedPlan same = map_disaggregated("disagg P 2x(TP8 EP8) + D 3x(TP8 EP8)");
  ASSERT_TRUE(same.plan.ok()) << same.plan.reason;
  EXPECT_EQ(same.plan.value, "tp=8,ep=8");
  EXPECT_EQ(same.prefill_replicas, 2);
  EXPECT_EQ(same.decode_replicas, 3);
  EXPECT_EQ(map_disaggregated("disagg P 1x(TP8 EP8 DPA) + D 1x(DEP8)").plan.value, "tp=1,ep=8,dp=8");
  EXPECT_EQ(same.prefill_plan, "tp=8,ep=8");
  const DisaggregatedPlan mixed = map_disaggregated("disagg P 1x(TP4 EP4 DPA) + D 5x(TP8 EP8)");
  ASSERT_TRUE(mixed.plan.ok()) << mixed.plan.reason;
  EXPECT_EQ(mixed.plan.value, "tp=8,ep=8");
  EXPECT_EQ(mixed.prefill_plan, "tp=1,ep=4,dp=4");
  EXPECT_EQ(mixed.prefill_replicas, 1);
  EXPECT_EQ(mixed.decode_replicas, 5);
  EXPECT_TRUE(mixed.prefill_attention_dp);
  EXPECT_FALSE(mixed.decode_attention_dp);
  // Attention DP at one GPU a worker is still stated (InferenceX's placeholder degrees).
  const DisaggregatedPlan placeholders = map_disaggregated("disagg P 1x(TP1 EP1) + D 2x(TP1 EP1 DPA)");
  EXPECT_FALSE(placeholders.prefill_attention_dp);
  EXPECT_TRUE(placeholders.decode_attention_dp);
  EXPECT_TRUE(states_attention_dp("DEP4"));
  EXPECT_TRUE(states_attention_dp("TP8, attention DP"));
  EXPECT_FALSE(states_attention_dp("TP8 EP8 (no DP attention)"));
  EXPECT_FALSE(states_attention_dp("TP8 EP2, max_batch_size 1"));
  EXPECT_NE(map_disaggregated("disagg 3x DEP4 prefill + 3x TEP4 decode").plan.reason.find("is not 'disagg P"),
            std::string::npos);
  EXPECT_NE(map_disaggregated("disagg P 1x(MLA TP8) + D 1x(TP8)").plan.reason.find("prefill plan"), std::string::npos);
  EXPECT_NE(map_disaggregated("disagg P 0x(TP8) + D 1x(TP8)").plan.reason.find("names no replica"), std::string::npos);
  EXPECT_NE(map_disaggregated("disagg P 1234567x(TP8) + D 1x(TP8)").plan.reason.find("more than 1,000,000"),
            std::string::npos);
  EXPECT_FALSE(map_disaggregated("disagg P 99999999999999999999x(TP8) + D 1x(TP8)").plan.ok());
}

// An overlong number in a transcribed row saturates instead of throwing: the plan check or the
// drafter check downstream refuses it with their reason.
TEST(MeasuredNames, OverlongNumbersSaturate) {
  const Mapped huge = map_plan("TP99999999999999999999 EP1");
  ASSERT_TRUE(huge.ok()) << huge.reason;
  EXPECT_EQ(plan_degrees(huge.value).tp, std::numeric_limits<int>::max());
  EXPECT_EQ(stated_draft_tokens("MTP nextn=99999999999999999999"), std::numeric_limits<int>::max());
  EXPECT_EQ(map_plan("TP8 attention, MoE TP99999999999999999999 EP99999999999999999999").reason.empty(), false);
}

// A speculative disaggregated row whose multi-node recipe's drafts are not read is unmapped.
TEST(MeasuredSources, SpeculativeDisaggregatedRowsAreUnmapped) {
  const std::string header =
      "id,source_url,engine_version,system,gpus,model,precision,plan(tp/ep/dp),isl,osl,concurrency,"
      "output_tok_s_per_gpu,total_tok_s_per_gpu,user_tok_s,ttft_s_mean,ttft_s_p50,tpot_s_mean,tpot_s_p50,spec_method,"
      "accept_len,power_w_per_gpu,notes\n";
  std::istringstream in(header +
                        "x,https://github.com/SemiAnalysisAI/InferenceX/actions/runs/1,SGLang,hgx-h200,16,"
                        "DeepSeek-R1-0528,FP8,disagg P 1x(TP8 EP1) + D 1x(TP8 EP1),1024,1024,4,50,100,,,,0.01,,MTP,,,\n");
  const MeasuredFile f = read_serving_points_2(in, "sp2.csv");
  EXPECT_TRUE(f.runs.empty());
  ASSERT_EQ(f.skipped.size(), 1u);
  EXPECT_NE(f.skipped[0].reason.find("draft tokens are not read"), std::string::npos) << f.skipped[0].reason;
}

// A disaggregated row's workers fill the GPUs its notes state (calibration/disagg_worker_gpus.hpp).
// InferenceX's multi-node SGLang rows carry their config's placeholder degrees (TP1 EP1): each
// worker then spans its role's GPUs over its workers, DEPn with attention DP, TPn without (the
// shipped rows: IXF-gb200-dynamo-sglang-fp4-none-dis-1k1k-p1x1e1d-d2x1e1d-c4 and
// ...-8k1k-p1x1e1-d4x1e1d-c4). Any other row whose plan fills other GPUs than it states, or whose
// workers cannot share the stated GPUs evenly, is skipped.
TEST(MeasuredSources, DisaggregatedWorkersFillTheGpusTheNotesState) {
  const std::string header =
      "id,source_url,engine_version,system,gpus,model,precision,plan(tp/ep/dp),isl,osl,concurrency,"
      "output_tok_s_per_gpu,total_tok_s_per_gpu,user_tok_s,ttft_s_mean,ttft_s_p50,tpot_s_mean,tpot_s_p50,spec_method,"
      "accept_len,power_w_per_gpu,notes\n";
  const std::string ix = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/20413316138/attempts/1";
  const auto row = [](const std::string& id, const std::string& source, const std::string& gpus,
                      const std::string& plan, const std::string& notes) {
    return id + "," + source + ",lmsysorg/sglang:v0.5.5.post2,gb200-nvl72," + gpus + ",DeepSeek-R1-0528,NVFP4," +
           plan + ",1024,1024,4,41.7,82.6,133.4,0.22,0.21,0.0075,0.0075,none,,," + notes + "\n";
  };
  std::istringstream in(
      header +
      row("dep", ix, "12", "disagg P 1x(TP1 EP1 DPA) + D 2x(TP1 EP1 DPA)", "disagg: 4 prefill + 8 decode GPUs") +
      row("tp-prefill", ix, "20", "disagg P 1x(TP1 EP1) + D 4x(TP1 EP1 DPA)", "disagg: 4 prefill + 16 decode GPUs") +
      row("stated", ix, "32", "disagg P 1x(TP8 EP8) + D 3x(TP8 EP8)", "disagg: 8 prefill + 24 decode GPUs") +
      row("other-source", "https://example.org/run", "24", "disagg P 1x(TP8 EP8) + D 1x(TP8 EP8)",
          "disagg: 16 prefill + 8 decode GPUs") +
      row("indivisible", ix, "8", "disagg P 3x(TP1 EP1 DPA) + D 1x(TP1 EP1 DPA)", "disagg: 4 prefill + 4 decode GPUs") +
      row("no-gpus", ix, "8", "disagg P 1x(TP1 EP1 DPA) + D 2x(TP1 EP1 DPA)", "disagg: 0 prefill + 8 decode GPUs"));
  const MeasuredFile f = read_serving_points_2(in, "sp2.csv");
  std::map<std::string, const MeasuredRun*> runs;
  for (const auto& r : f.runs) runs[r.id] = &r;
  ASSERT_EQ(runs.count("dep"), 1u);
  EXPECT_EQ(runs["dep"]->plan, "tp=1,ep=4,dp=4");
  EXPECT_EQ(runs["dep"]->prefill_plan, "");  // the same plan as the decode workers'
  EXPECT_EQ(runs["dep"]->prefill_replicas, 1);
  EXPECT_EQ(runs["dep"]->decode_replicas, 2);
  ASSERT_EQ(runs.count("tp-prefill"), 1u);
  EXPECT_EQ(runs["tp-prefill"]->prefill_plan, "tp=4,ep=1");
  EXPECT_EQ(runs["tp-prefill"]->plan, "tp=1,ep=4,dp=4");
  EXPECT_EQ(runs["tp-prefill"]->decode_replicas, 4);
  ASSERT_EQ(runs.count("stated"), 1u);
  EXPECT_EQ(runs["stated"]->plan, "tp=8,ep=8");
  EXPECT_EQ(runs["stated"]->decode_replicas, 3);
  std::map<std::string, std::string> skipped;
  for (const auto& s : f.skipped) skipped[s.id] = s.reason;
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_NE(skipped["other-source"].find("its notes state 16 prefill and 8 decode GPUs"), std::string::npos)
      << skipped["other-source"];
  EXPECT_NE(skipped["other-source"].find("fills 8 and 8"), std::string::npos) << skipped["other-source"];
  EXPECT_NE(skipped["indivisible"].find("cannot share the stated GPUs evenly"), std::string::npos) << skipped["indivisible"];
  EXPECT_NE(skipped["no-gpus"].find("cannot share the stated GPUs evenly"), std::string::npos) << skipped["no-gpus"];
}

// trtllm-perf-overview line 2: DeepSeek-R1-0528,1000,1000,B200,DEP4,FP4,6463 -- an attention-DP run
// maps as the doc's MoE command (--tp 4 --ep 4, enable_attention_dp: a replica of four attention-DP
// ranks with its experts over all four), ModelOpt's NVFP4 experts and the FP8 KV cache its
// llm_options set; the tool's settings are decided when the row is prepared (DeepSeek-R1's are
// refused there: trtllm_bench_limits.hpp). GPT-OSS's FP4 rows are OpenAI's MXFP4 release; its rows
// labelled FP8 name no checkpoint.
TEST(MeasuredSources, TrtllmPerfOverviewAttentionDpRowsMapAsTheDocsMoeCommand) {
  const MeasuredSet set = load_measured(kDir + "/trtllm-perf-overview/perf_overview_output_tps_per_gpu.csv");
  EXPECT_EQ(set.files.at(0).schema, "trtllm-perf-overview");
  ASSERT_EQ(set.runs.size(), 2u);
  EXPECT_TRUE(set.skipped.empty());
  const MeasuredRun& r = set.runs[0];
  EXPECT_EQ(r.model, "deepseek-r1");
  EXPECT_EQ(r.plan, "tp=1,ep=4,dp=4");
  EXPECT_EQ(r.experts_dtype, "nvfp4");
  EXPECT_EQ(r.kv_dtype, "fp8");
  EXPECT_TRUE(r.trtllm_bench);
  EXPECT_EQ(r.max_sequences, 0);
  std::istringstream in("model,isl,osl,gpu,parallelism,precision,output_tokens_per_s_per_gpu\n"
                        "GPT-OSS-120B,1024,1024,B200,DEP2,FP4,25870\n"
                        "GPT-OSS-120B,1024,1024,H200,TP1,FP8,6798\n");
  const MeasuredFile f = read_trtllm_perf_overview(in, "po.csv");
  ASSERT_EQ(f.runs.size(), 1u);
  EXPECT_EQ(f.runs[0].experts_dtype, "mxfp4");
  EXPECT_EQ(f.runs[0].plan, "tp=1,ep=2,dp=2");
  ASSERT_EQ(f.skipped.size(), 1u);
  EXPECT_NE(f.skipped[0].reason.find("no FP8 GPT-OSS checkpoint"), std::string::npos) << f.skipped[0].reason;
}

// A dense row maps as the doc's trtllm-bench run: every request of the dataset queued at once
// (3000 at 1024/1024), exact lengths, KV fraction 0.95, FP8 KV, the tool's own batch settings; an
// ISL/OSL the doc gives no request count for is a reason.
TEST(MeasuredSources, TrtllmPerfOverviewDenseRowsRunAsTheBenchmark) {
  std::istringstream in("model,isl,osl,gpu,parallelism,precision,output_tokens_per_s_per_gpu\n"
                        "Llama-3.3-70B,1024,1024,B200,TP1,FP4,6842\n"
                        "Llama-3.3-70B,8192,1024,H200,TP2,FP8,537\n"
                        "Llama-3.3-70B,2048,2048,H200,TP2,FP8,1000\n");
  const MeasuredFile f = read_trtllm_perf_overview(in, "po.csv");
  ASSERT_EQ(f.runs.size(), 2u);
  const MeasuredRun& b = f.runs[0];
  EXPECT_EQ(b.model, "llama-3.1-70b");
  EXPECT_EQ(b.system, "hgx-b200");
  EXPECT_EQ(b.plan, "tp=1,ep=1");
  EXPECT_EQ(b.engine, "trtllm");
  EXPECT_EQ(b.experts_dtype, "nvfp4");  // ModelOpt's NVFP4 checkpoint: a dense model's weights (validation_runner.cpp)
  EXPECT_EQ(b.kv_dtype, "fp8");
  EXPECT_EQ(b.prompts, 3000);
  EXPECT_DOUBLE_EQ(b.concurrency, 3000);
  EXPECT_DOUBLE_EQ(b.range_ratio, 1.0);
  EXPECT_DOUBLE_EQ(b.kv_free_memory_fraction, 0.95);
  EXPECT_TRUE(b.trtllm_bench);
  EXPECT_EQ(b.max_batch_tokens, 0);  // the tool's heuristic, applied where the model is known
  EXPECT_DOUBLE_EQ(test::metric_of(b, "output_tok_s_per_gpu"), 6842);
  EXPECT_EQ(f.runs[1].prompts, 1500);
  EXPECT_EQ(f.runs[1].plan, "tp=2,ep=1");
  ASSERT_EQ(f.skipped.size(), 1u);
  EXPECT_NE(f.skipped[0].reason.find("no request count"), std::string::npos) << f.skipped[0].reason;
}

TEST(MeasuredSources, DirectoryReadsEveryCsvAndReportsDuplicates) {
  const MeasuredSet set = load_measured(kDir);
  ASSERT_EQ(set.files.size(), 4u);
  EXPECT_EQ(set.rows(), 1 + 3 + 4 + 2);
  // measured_runs.csv line 2 (ix870-c8) is the point serving-points line 2 reports: the later one is a duplicate.
  // measured_runs 1, serving-points 2 less the duplicate, serving-points-2 3, trtllm-perf-overview 2.
  EXPECT_EQ(set.runs.size(), 7u);
  bool dup = false;
  for (const auto& s : set.skipped) {
    if (s.reason.find("duplicate of " + kDir + "/measured_runs.csv:2") != std::string::npos) {
      dup = true;
      EXPECT_EQ(s.file, kDir + "/serving-points/serving_points.csv");
      EXPECT_EQ(s.line, 2);
    }
  }
  EXPECT_TRUE(dup);
  EXPECT_EQ(set.runs.size() + set.skipped.size(), static_cast<std::size_t>(set.rows()));
}

// The stream interval follows the source: fixture line 4 as read, and again with a source other
// than InferenceX (every token streamed, the default).
TEST(MeasuredSources, StreamIntervalIsInferenceXsTenTokensAndOneElsewhere) {
  std::ifstream f(kDir + "/serving-points-2/serving_points.csv");
  std::string header, line;
  std::getline(f, header);
  for (int i = 2; i <= 4; ++i) std::getline(f, line);
  const std::string ix = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/26135241056/attempts/1";
  const auto at = line.find(ix);
  ASSERT_NE(at, std::string::npos) << line;
  std::string other = line;
  other.replace(at, ix.size(), "https://example.org/other-benchmark");
  other.replace(0, other.find(','), "OTHER-ROW");
  std::istringstream in(header + "\n" + line + "\n" + other + "\n");
  const MeasuredFile file = read_serving_points_2(in, "sp2.csv");
  ASSERT_EQ(file.runs.size(), 2u);
  EXPECT_EQ(file.runs[0].stream_interval_tokens, 10);
  EXPECT_EQ(file.runs[1].stream_interval_tokens, 1);
  EXPECT_DOUBLE_EQ(file.runs[0].range_ratio, 0.8);  // InferenceX's client spread; elsewhere exact lengths
  EXPECT_DOUBLE_EQ(file.runs[1].range_ratio, 1.0);
  EXPECT_EQ(file.runs[0].prompts, 10 * static_cast<long long>(file.runs[0].concurrency));
  EXPECT_EQ(file.runs[1].prompts, 0);  // not stated: the steady state is predicted
  EXPECT_EQ(file.runs[1].engine, file.runs[0].engine);  // only the source differs
}

// The recipes' KV-cache format (calibration/inferencex_kv_dtype.hpp) by engine and system.
TEST(MeasuredSources, InferenceXKvFormatIsTheRecipes) {
  MeasuredRun r;
  r.model = "deepseek-r1";
  const auto kv = [&](const char* engine, const char* system) {
    r.engine = engine;
    r.system = system;
    return inferencex_kv_dtype(r);
  };
  EXPECT_EQ(kv("sglang", "hgx-b200"), "fp8");  // --kv-cache-dtype fp8_e4m3
  EXPECT_EQ(kv("sglang", "mi300x-8"), "fp8");
  EXPECT_EQ(kv("sglang", "mi355x-8"), "fp8");
  EXPECT_EQ(kv("trtllm", "hgx-h200"), "fp8");  // kv_cache_config: dtype: fp8
  EXPECT_EQ(kv("sglang", "hgx-h200"), "");     // not set: the model's BF16
  EXPECT_EQ(kv("vllm", "hgx-h100"), "");
  // Disaggregated runs: the multi-node recipes' format, FP8 for SGLang + MoRI on MI355X only.
  r.prefill_replicas = 1;
  EXPECT_EQ(kv("sglang", "mi355x-8"), "fp8");  // sglang_disagg_server.sh, amd_utils/models.yaml
  EXPECT_EQ(kv("sglang", "hgx-b200"), "");     // Dynamo + SGLang: not read, the model's format
  EXPECT_EQ(kv("trtllm", "hgx-h200"), "");
  r.prefill_replicas = 0;
  r.model = "gpt-oss-120b";
  EXPECT_EQ(kv("trtllm", "hgx-b200"), "");     // only the DeepSeek-R1 recipes were read
}

// A DeepSeek-R1 row of `engine` on `system` with `experts` weights: where the recipe tests start.
MeasuredRun r1_row(const std::string& engine, const std::string& system, const std::string& experts) {
  MeasuredRun r;
  r.model = "deepseek-r1";
  r.engine = engine;
  r.system = system;
  r.experts_dtype = experts;
  return r;
}

// The recipes' intervals (calibration/inferencex_stream_interval.hpp) by engine, system and precision.
TEST(MeasuredSources, InferenceXStreamIntervalFollowsTheRecipe) {
  MeasuredRun r = r1_row("sglang", "hgx-b200", "fp8");
  EXPECT_EQ(inferencex_stream_interval_tokens(r), 30);  // dsr1_fp8_b200.sh
  r.experts_dtype = "fp4";
  EXPECT_EQ(inferencex_stream_interval_tokens(r), 10);  // dsr1_fp4_b200.sh
  r.system = "mi355x-8";
  EXPECT_EQ(inferencex_stream_interval_tokens(r), 1);  // dsr1_fp4_mi355x.sh sets none
  r.engine = "trtllm";
  r.system = "hgx-h200";
  r.experts_dtype = "fp8";
  EXPECT_EQ(inferencex_stream_interval_tokens(r), 10);  // dsr1_fp8_h200_trt.sh
  r.model = "gpt-oss-120b";
  r.engine = "vllm";
  EXPECT_EQ(inferencex_stream_interval_tokens(r), 1);  // gptoss_fp4_h100.sh sets none
}

// The recipes' receive intervals (calibration/inferencex_recv_interval.hpp): SGLang on B200 only,
// by concurrency, and the FP8 script's TP 4 branch at 10.
TEST(MeasuredSources, InferenceXRecvIntervalFollowsTheRecipe) {
  MeasuredRun r = r1_row("sglang", "hgx-b200", "fp8");
  r.plan = "tp=8,ep=1";
  r.concurrency = 4;
  EXPECT_EQ(inferencex_recv_interval_steps(r), 10);  // dsr1_fp8_b200.sh, CONC < 16
  r.concurrency = 16;
  EXPECT_EQ(inferencex_recv_interval_steps(r), 30);  // CONC >= 16
  r.plan = "tp=4,ep=1";
  EXPECT_EQ(inferencex_recv_interval_steps(r), 10);  // the TP 4 branch
  r.experts_dtype = "fp4";
  EXPECT_EQ(inferencex_recv_interval_steps(r), 30);  // dsr1_fp4_b200.sh: by concurrency at any TP
  r.system = "hgx-h200";
  EXPECT_EQ(inferencex_recv_interval_steps(r), 1);   // dsr1_fp8_h200.sh sets none
  r.system = "hgx-b200";
  r.engine = "trtllm";
  EXPECT_EQ(inferencex_recv_interval_steps(r), 1);
}

// The recipes' TensorRT-LLM context waits (calibration/inferencex_context_wait.hpp): attention-DP
// balance on every DPA plan; batch waiting on the B200 FP8 script without MTP at 1k/1k and
// concurrency >= 64 from 2026-01-28; neither on SGLang.
TEST(MeasuredSources, InferenceXContextWaitFollowsTheRecipe) {
  MeasuredRun r = r1_row("trtllm", "hgx-h200", "fp8");
  r.plan = "tp=1,ep=8,dp=8";
  r.isl = r.osl = 1024;
  r.concurrency = 256;
  apply_inferencex_context_wait(r);
  EXPECT_EQ(r.balance_timeout_steps, 60);  // attention_dp_config timeout_iters
  EXPECT_EQ(r.batch_wait_steps, 0);
  r.plan = "tp=8,ep=1";
  r.system = "hgx-b200";
  r.run_date = "2026-01-29";
  apply_inferencex_context_wait(r);
  EXPECT_EQ(r.balance_timeout_steps, 0);
  EXPECT_EQ(r.batch_wait_steps, 40);       // DELAY_BATCHING in dsr1_fp8_b200_trt.sh
  EXPECT_DOUBLE_EQ(r.batch_wait_max_tokens_ratio, 0.8);
  r.run_date = "2025-12-15";               // before the script set it
  apply_inferencex_context_wait(r);
  EXPECT_EQ(r.batch_wait_steps, 0);
  r.run_date = "2026-05-18";
  r.concurrency = 32;                      // below 64
  apply_inferencex_context_wait(r);
  EXPECT_EQ(r.batch_wait_steps, 0);
  r.concurrency = 64;
  r.speculative = true;                    // dsr1_fp8_b200_trt_mtp.sh sets none
  apply_inferencex_context_wait(r);
  EXPECT_EQ(r.batch_wait_steps, 0);
  r.speculative = false;
  r.engine = "sglang";
  r.plan = "tp=1,ep=8,dp=8";
  apply_inferencex_context_wait(r);
  EXPECT_EQ(r.balance_timeout_steps, 0);
  EXPECT_EQ(r.batch_wait_steps, 0);
}

// {max_batch_tokens, max_sequences} the recipe mapping gives a row.
std::pair<int, int> batch_limits(MeasuredRun r) {
  apply_inferencex_batch_limits(r);
  return {r.max_batch_tokens, r.max_sequences};
}

MeasuredRun r1_row_at(const std::string& engine, const std::string& system, const std::string& experts,
                      const std::string& plan, long long isl, double concurrency) {
  MeasuredRun r = r1_row(engine, system, experts);
  r.plan = plan;
  r.isl = isl;
  r.osl = 1024;
  r.concurrency = concurrency;
  return r;
}

// The recipes' draft tokens (calibration/inferencex_draft_tokens.hpp): SGLang 2 on B200 and H200,
// 3 on AMD; TensorRT-LLM 3, 1 with attention DP; none without speculation.
TEST(MeasuredSources, InferenceXDraftTokensFollowTheRecipe) {
  MeasuredRun r = r1_row("sglang", "hgx-b200", "fp8");
  r.plan = "tp=8,ep=1";
  EXPECT_EQ(inferencex_draft_tokens(r), 0);  // no MTP
  r.speculative = true;
  EXPECT_EQ(inferencex_draft_tokens(r), 2);  // dsr1_fp8_b200_mtp.sh: --speculative-num-steps 2
  r.system = "hgx-h200";
  EXPECT_EQ(inferencex_draft_tokens(r), 2);
  r.system = "mi355x-8";
  EXPECT_EQ(inferencex_draft_tokens(r), 3);  // dsr1_fp8_mi355x_mtp.sh: 3
  r.engine = "trtllm";
  r.system = "hgx-b200";
  EXPECT_EQ(inferencex_draft_tokens(r), 3);  // num_nextn_predict_layers 3
  r.plan = "tp=1,ep=8,dp=8";
  EXPECT_EQ(inferencex_draft_tokens(r), 1);  // 1 with attention DP
}

// InferenceX's ATOM rows on MI355X run the ATOM recipes (dsr1_fp{8,4}_mi355x_atom{,_mtp}.sh): FP8 KV,
// ATOM's default batch limits and memory share, one draft token where the script states none and
// three in the FP8 MTP script from 2026-04-02.
TEST(MeasuredSources, InferenceXAtomRowsRunTheAtomRecipes) {
  const MeasuredRun* fp8_mtp = shipped_row("IXF-mi355x-atom-fp8-mtp-agg-1k1k-tp8ep1-c8");    // 2026-06-02
  const MeasuredRun* fp8_mtp_feb = shipped_row("IXF-mi355x-atom-fp8-mtp-agg-1k8k-tp8ep1-c8");  // 2026-02-11
  const MeasuredRun* fp4_mtp = shipped_row("IXF-mi355x-atom-fp4-mtp-agg-1k1k-tp8ep1-c8");     // 2026-05-20
  const MeasuredRun* fp4 = shipped_row("IXF-mi355x-atom-fp4-none-agg-8k1k-tp4ep1-c32");
  ASSERT_TRUE(fp8_mtp && fp8_mtp_feb && fp4_mtp && fp4);
  for (const MeasuredRun* r : {fp8_mtp, fp8_mtp_feb, fp4_mtp, fp4}) {
    EXPECT_EQ(r->engine, "atom") << r->id;
    EXPECT_EQ(r->system, "mi355x-8") << r->id;
    EXPECT_EQ(r->kv_dtype, "fp8") << r->id;
    EXPECT_EQ(r->max_batch_tokens, 16384) << r->id;
    EXPECT_EQ(r->max_sequences, 512) << r->id;
    EXPECT_DOUBLE_EQ(r->memory_fraction, 0.9) << r->id;
    EXPECT_EQ(r->stream_interval_tokens, 1) << r->id;
  }
  EXPECT_EQ(fp8_mtp->draft_tokens, 3);
  EXPECT_EQ(fp8_mtp_feb->draft_tokens, 1);
  EXPECT_EQ(fp4_mtp->draft_tokens, 1);
  EXPECT_EQ(fp4->draft_tokens, 0);
  EXPECT_EQ(fp4->plan, "tp=4,ep=1");
}

// The recipes' MoE runner (calibration/inferencex_moe_backend.hpp): TensorRT-LLM's moe_config.backend
// in dsr1_fp8_b200_trt.sh and its _mtp script, by version (run date), lengths, concurrency and
// attention DP; other scripts, engines and undated rows keep the engine's choice ("").
TEST(MeasuredSources, InferenceXMoeBackendFollowsTheRecipe) {
  const std::string deepgemm = "deepgemm", trtllm = "flashinfer-trtllm-gen";
  MeasuredRun r = r1_row_at("trtllm", "hgx-b200", "fp8", "tp=8,ep=8", 1024, 4);
  EXPECT_EQ(inferencex_moe_implementation(r), "");           // undated
  r.run_date = "2025-09-15";
  EXPECT_EQ(inferencex_moe_implementation(r), trtllm);       // "backend: TRTLLM"
  r.run_date = "2025-12-15";
  EXPECT_EQ(inferencex_moe_implementation(r), deepgemm);     // MOE_BACKEND="DEEPGEMM" from 2025-09-18
  r.run_date = "2026-01-29";
  EXPECT_EQ(inferencex_moe_implementation(r), trtllm);       // TRTLLM from 2026-01-29 ...
  r.osl = 8192;
  r.concurrency = 256;
  EXPECT_EQ(inferencex_moe_implementation(r), deepgemm);     // ... but DEEPGEMM at 1k/8k from 256
  r.run_date = "2026-05-18";
  EXPECT_EQ(inferencex_moe_implementation(r), trtllm);       // TRTLLM everywhere from 2026-03-27
  r = r1_row_at("trtllm", "hgx-b200", "fp8", "tp=8,ep=8", 1024, 32);
  r.speculative = true;
  r.run_date = "2026-01-14";
  EXPECT_EQ(inferencex_moe_implementation(r), deepgemm);     // the first MTP script's DEEPGEMM
  r.run_date = "2026-02-05";
  EXPECT_EQ(inferencex_moe_implementation(r), trtllm);       // TRTLLM from 2026-02-05 ...
  r.plan = "tp=1,ep=8,dp=8";
  EXPECT_EQ(inferencex_moe_implementation(r), deepgemm);     // ... DEEPGEMM with attention DP
  r.experts_dtype = "fp4";
  EXPECT_EQ(inferencex_moe_implementation(r), "");           // the FP4 scripts: TRTLLM or CUTLASS
  r.experts_dtype = "fp8";
  r.system = "hgx-h200";
  EXPECT_EQ(inferencex_moe_implementation(r), "");           // the H200 scripts: CUTLASS
  r.system = "hgx-b200";
  r.engine = "sglang";
  EXPECT_EQ(inferencex_moe_implementation(r), "");
  // The client mapping puts the choice on the row's grouped_gemm_fp8 table.
  r = r1_row_at("trtllm", "hgx-b200", "fp8", "tp=8,ep=8", 1024, 4);
  r.run_date = "2025-12-15";
  apply_inferencex_run(r);
  EXPECT_EQ(r.kernels, (std::map<std::string, std::string>{{"grouped_gemm_fp8", deepgemm}}));
  r.run_date = "2026-05-18";
  r.kernels.clear();
  apply_inferencex_run(r);
  EXPECT_EQ(r.kernels.at("grouped_gemm_fp8"), trtllm);
}

// The multi-node recipes' drafts (calibration/inferencex_disagg_drafts.hpp): MI355X SGLang + MoRI
// rows take DECODE_MTP_SIZE of their amd-master.yaml entry, and run without the overlap scheduler
// before amd_utils/env.sh exported SGLANG_ENABLE_SPEC_V2 (2026-05-07); a dynamo-trt row whose
// `_mtp3` recipe is read drafts 3; a Dynamo + SGLang row takes its srt-slurm recipe's
// speculative-num-steps, without the overlap scheduler where the recipe leaves SGLANG_ENABLE_SPEC_V2
// unset.
TEST(MeasuredSources, InferenceXDisaggDraftsFollowTheRecipe) {
  // A speculative disaggregated row: one prefill worker and `decode` decode workers.
  auto mtp_row = [](const std::string& engine, const std::string& system, const std::string& experts,
                    const std::string& plan, long long isl, double concurrency, const std::string& id, int decode,
                    const std::string& run_date) {
    MeasuredRun r = r1_row_at(engine, system, experts, plan, isl, concurrency);
    r.id = id;
    r.speculative = true;
    r.prefill_replicas = 1, r.decode_replicas = decode;
    r.run_date = run_date;
    return r;
  };
  MeasuredRun m = mtp_row("sglang", "mi355x-8", "fp4", "tp=8,ep=1", 1024, 64,
                          "IXF-mi355x-mori-sglang-fp4-mtp-dis-1k1k-p1x8e1-d2x8e1-c64", 2, "2026-03-13");
  apply_inferencex_disagg_drafts(m);
  EXPECT_EQ(m.draft_tokens, 1);  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
  EXPECT_TRUE(m.overlap_scheduler_off);
  m.prefill_plan = "tp=4,ep=1";
  m.run_date = "2026-05-27";
  m.draft_tokens = 0;
  apply_inferencex_disagg_drafts(m);
  EXPECT_EQ(m.draft_tokens, 2);  // @bb0005581, P 1x(TP4 EP1)
  EXPECT_FALSE(m.overlap_scheduler_off);
  m.concurrency = 48;            // no entry lists it
  m.draft_tokens = 0;
  apply_inferencex_disagg_drafts(m);
  EXPECT_EQ(m.draft_tokens, 0);
  MeasuredRun t = mtp_row("trtllm", "hgx-h100", "fp8", "tp=16,ep=16", 8192, 30,
                          "IXF-h100-dynamo-trt-fp8-mtp-dis-8k1k-p1x16e16d-d3x16e16-c30", 3, "2026-02-08");
  apply_inferencex_disagg_limits(t);
  EXPECT_EQ(t.decode_max_sequences, 8);  // h100-fp8/8k1k/mtp/ctx1_gen3_tep16_batch8_eplb0_mtp3.yaml
  EXPECT_EQ(t.draft_tokens, 3);
  MeasuredRun s = mtp_row("sglang", "hgx-h200", "fp8", "tp=8,ep=1", 8192, 8,
                          "IXF-h200-dynamo-sglang-fp8-mtp-dis-8k1k-p1x8e1-d6x8e1-c8", 6, "2026-02-07");
  apply_inferencex_disagg_limits(s);
  apply_inferencex_disagg_drafts(s);
  EXPECT_EQ(s.draft_tokens, 2);  // recipes/h200/8k1k/bs8-1p6d-mtp.yaml: speculative-num-steps 2
  EXPECT_FALSE(s.overlap_scheduler_off);
  s.run_date = "2026-02-08";  // no run of that recipe that day
  s.draft_tokens = 0;
  apply_inferencex_disagg_drafts(s);
  EXPECT_EQ(s.draft_tokens, 0);
  MeasuredRun h = mtp_row("sglang", "hgx-h100", "fp8", "tp=1,ep=16,dp=16", 1024, 4,
                          "IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d1x16e16d-c4", 1, "2026-02-13");
  h.prefill_plan = "tp=16,ep=1";
  apply_inferencex_disagg_drafts(h);
  EXPECT_EQ(h.draft_tokens, 2);
  EXPECT_TRUE(h.overlap_scheduler_off);  // h100-fp8-1p1d-max-dep-mtp.yaml leaves SGLANG_ENABLE_SPEC_V2 unset
  MeasuredRun b = mtp_row("sglang", "hgx-b200", "nvfp4", "tp=8,ep=1", 8192, 64,
                          "IXF-b200-dynamo-sglang-fp4-mtp-dis-8k1k-p1x4e1-d1x8e1-c64", 1, "2026-06-11");
  b.prefill_plan = "tp=4,ep=1";
  apply_inferencex_disagg_drafts(b);
  EXPECT_EQ(b.draft_tokens, 3);  // 8k1k_mtp_lowlat_2.yaml: speculative-num-steps 3
  b.run_date = "2026-02-11";     // that month's recipe: low-latency-tp4-1p-tp8-1d.yaml, 2 steps
  b.concurrency = 8;
  apply_inferencex_disagg_drafts(b);
  EXPECT_EQ(b.draft_tokens, 2);
  // Through the loader: the shipped rows above are mapped with their recipes' drafts.
  const MeasuredRun* mori = shipped_row("IXF-mi355x-mori-sglang-fp4-mtp-dis-1k1k-p1x8e1-d2x8e1-c64");
  ASSERT_NE(mori, nullptr);
  EXPECT_EQ(mori->draft_tokens, 1);
  EXPECT_TRUE(mori->overlap_scheduler_off);
  const MeasuredRun* dynamo = shipped_row("IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d1x16e16d-c4");
  ASSERT_NE(dynamo, nullptr);
  EXPECT_EQ(dynamo->draft_tokens, 2);
  EXPECT_TRUE(dynamo->overlap_scheduler_off);
}

// The Dynamo + SGLang H100/H200 recipes with attention DP and EP set no --moe-a2a-backend
// (calibration/inferencex_expert_exchange.hpp): their decode plan runs the all-gather exchange;
// TP-only plans, GB200 (DeepEP) and the MoRI rows keep the all-to-all.
TEST(MeasuredSources, InferenceXDynamoSglangDepRowsRunTheAllGatherExchange) {
  MeasuredRun h = r1_row_at("sglang", "hgx-h100", "fp8", "tp=1,ep=16,dp=16", 1024, 4);
  h.id = "IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d1x16e16d-c4";
  h.prefill_replicas = 1, h.decode_replicas = 1;
  EXPECT_FALSE(inferencex_expert_all_to_all(h));
  MeasuredRun tp = h;
  tp.plan = "tp=16,ep=1";
  EXPECT_TRUE(inferencex_expert_all_to_all(tp));
  MeasuredRun gb = h;
  gb.system = "gb200-nvl72", gb.plan = "tp=1,ep=4,dp=4";
  EXPECT_TRUE(inferencex_expert_all_to_all(gb));
  MeasuredRun agg = h;
  agg.prefill_replicas = 0;
  EXPECT_TRUE(inferencex_expert_all_to_all(agg));
  // Through the loader: the shipped H100 DEP row's decode plan says so, and the TP rows' do not.
  const MeasuredRun* dep = shipped_row("IXF-h100-dynamo-sglang-fp8-mtp-dis-1k1k-p1x16e1-d1x16e16d-c4");
  ASSERT_NE(dep, nullptr);
  EXPECT_EQ(dep->plan, "tp=1,ep=16,dp=16,a2a=0");
  int tp_rows = 0;
  for (const MeasuredRun& r : shipped_serving_points_2().runs) {
    if (!r.id.starts_with("IXF-h100-dynamo-sglang-") || !r.plan.starts_with("tp=16")) continue;
    EXPECT_EQ(r.plan.find("a2a"), std::string::npos) << r.id;
    ++tp_rows;
  }
  EXPECT_GT(tp_rows, 0);
}

// The multi-node recipes' decode limits (calibration/inferencex_disagg_limits.hpp): Dynamo-fronted
// rows route round robin; a dynamo-trt row whose recipe is read gets its decode max_batch_size.
TEST(MeasuredSources, InferenceXDisaggLimitsFollowTheRecipe) {
  MeasuredRun r = r1_row_at("trtllm", "hgx-h100", "fp8", "tp=16,ep=16", 1024, 6);
  r.id = "IXF-h100-dynamo-trt-fp8-none-dis-1k1k-p1x16e16d-d3x16e16-c6";
  r.prefill_replicas = 1, r.decode_replicas = 3;
  r.run_date = "2026-02-08";
  apply_inferencex_disagg_limits(r);
  EXPECT_TRUE(r.decode_round_robin);
  EXPECT_EQ(r.decode_max_sequences, 1);  // h100-fp8/1k1k/stp/ctx1_gen3_tep16_batch1_eplb0_mtp0.yaml
  r.concurrency = 30;
  r.decode_max_sequences = 0;
  apply_inferencex_disagg_limits(r);
  EXPECT_EQ(r.decode_max_sequences, 8);  // ..._batch8_...
  r.run_date = "2026-03-01";             // a run of no recipe read: the router only
  r.decode_max_sequences = 0;
  apply_inferencex_disagg_limits(r);
  EXPECT_TRUE(r.decode_round_robin);
  EXPECT_EQ(r.decode_max_sequences, 0);
  // Dynamo with SGLang routes alike; SGLang with MoRI (its own router) and unified rows do not.
  MeasuredRun s = r1_row_at("sglang", "hgx-b200", "fp8", "tp=8,ep=8", 8192, 64);
  s.id = "IXF-b200-dynamo-sglang-fp8-none-dis-8k1k-p1x8e8-d4x8e8-c64";
  s.prefill_replicas = 1, s.decode_replicas = 4;
  apply_inferencex_disagg_limits(s);
  EXPECT_TRUE(s.decode_round_robin);
  EXPECT_EQ(s.decode_max_sequences, 0);
  s.id = "IXF-mi355x-mori-sglang-fp8-none-dis-8k1k-p1x8e8-d2x8e8-c64";
  s.decode_round_robin = false;
  apply_inferencex_disagg_limits(s);
  EXPECT_FALSE(s.decode_round_robin);
  s.id = "IXF-b200-dynamo-sglang-fp8-none-agg-8k1k-tp8ep8-c64";
  s.prefill_replicas = 0;
  apply_inferencex_disagg_limits(s);
  EXPECT_FALSE(s.decode_round_robin);
  // The client mapping applies it to a disaggregated InferenceX row.
  r.run_date = "2026-02-08";
  r.decode_round_robin = false;
  apply_inferencex_run(r);
  EXPECT_TRUE(r.decode_round_robin);
  EXPECT_EQ(r.decode_max_sequences, 8);
}

// The recipes' overlap scheduler (calibration/inferencex_overlap_scheduler.hpp): off only for
// SGLang's FP8 MTP script on B200 and B300, which never exports SGLANG_ENABLE_SPEC_V2.
TEST(MeasuredSources, InferenceXOverlapSchedulerFollowsTheRecipe) {
  MeasuredRun r = r1_row("sglang", "hgx-b200", "fp8");
  r.plan = "tp=8,ep=1";
  EXPECT_FALSE(inferencex_overlap_scheduler_off(r));  // dsr1_fp8_b200.sh: no speculation, SGLang's default
  r.speculative = true;
  EXPECT_TRUE(inferencex_overlap_scheduler_off(r));   // dsr1_fp8_b200_mtp.sh: SGLANG_ENABLE_SPEC_V2=1 unexported
  r.system = "hgx-b300";
  EXPECT_TRUE(inferencex_overlap_scheduler_off(r));   // dsr1_fp8_b300_mtp.sh, the same line
  r.system = "hgx-h200";
  EXPECT_FALSE(inferencex_overlap_scheduler_off(r));  // dsr1_fp8_h200_mtp.sh: export SGLANG_ENABLE_SPEC_V2=1
  r.system = "hgx-b200";
  r.experts_dtype = "fp4";
  EXPECT_FALSE(inferencex_overlap_scheduler_off(r));  // dsr1_fp4_b200_mtp.sh exports it
  r.experts_dtype = "fp8";
  r.engine = "trtllm";
  EXPECT_FALSE(inferencex_overlap_scheduler_off(r));  // TensorRT-LLM's recipes keep its overlap scheduler
  // Applied with the rest of the recipe, single-node rows only.
  MeasuredRun a = r1_row("sglang", "hgx-b200", "fp8");
  a.plan = "tp=8,ep=1";
  a.concurrency = 4;
  a.speculative = true;
  apply_inferencex_run(a);
  EXPECT_TRUE(a.overlap_scheduler_off);
}

// The recipes' batch limits (calibration/inferencex_batch_limits.hpp): SGLang's prefill budget and
// running-request cap per script, TensorRT-LLM's max_num_tokens formulas; vLLM rows keep the base's.
TEST(MeasuredSources, InferenceXBatchLimitsFollowTheRecipe) {
  using L = std::pair<int, int>;
  MeasuredRun r = r1_row_at("sglang", "hgx-b200", "fp8", "tp=8,ep=1", 8192, 64);
  EXPECT_EQ(batch_limits(r), L(32768, 128));  // dsr1_fp8_b200.sh, TP 8
  r.plan = "tp=4,ep=1";
  EXPECT_EQ(batch_limits(r), L(8192, 32));    // its TP 4 branch
  r.speculative = true;
  EXPECT_EQ(batch_limits(r), L(16384, 512));  // dsr1_fp8_b200_mtp.sh
  r.speculative = false;
  r.system = "hgx-h200";
  EXPECT_EQ(batch_limits(r), L(32768, 256));  // dsr1_fp8_h200.sh: 512 requests only at 1k/1k
  r.system = "mi355x-8";
  r.experts_dtype = "fp4";
  EXPECT_EQ(batch_limits(r), L(32768, 0));    // dsr1_fp4_mi355x.sh: 8k/1k above concurrency 32; requests unset
  r.concurrency = 32;
  EXPECT_EQ(batch_limits(r), L(196608, 0));
  r.speculative = true;
  EXPECT_EQ(batch_limits(r), L(196608, 48));  // dsr1_fp4_mi355x_mtp.sh: SGLang's speculative default
  r.experts_dtype = "fp8";
  EXPECT_EQ(batch_limits(r), L(196608, 48));  // dsr1_fp8_mi355x_mtp.sh before 2026-05-20: unset
  r.run_date = "2026-05-21";
  EXPECT_EQ(batch_limits(r), L(196608, 32));  // from 2026-05-20: the row's concurrency
  r.system = "mi325x-8";
  EXPECT_EQ(batch_limits(r), L(131072, 0));   // its run decoded ~61 of 64 requests: no cap
  r.speculative = false;

  MeasuredRun t = r1_row_at("trtllm", "hgx-b200", "fp8", "tp=8,ep=1", 8192, 256);
  t.run_date = "2026-05-18";
  EXPECT_EQ(batch_limits(t), L(8576, 0));     // max(8192, ceil64(256 + 8192 + 127))
  t.isl = 1024;
  EXPECT_EQ(batch_limits(t), L(8192, 0));     // the floor
  t.run_date = "2025-12-15";
  EXPECT_EQ(batch_limits(t), L(1408, 0));     // before the floor (2026-01-21): ceil64(256 + 1024 + 127)
  t.run_date = "2026-05-18";
  t.speculative = true;
  t.concurrency = 4;
  EXPECT_EQ(batch_limits(t), L(1216, 4));     // ceil64(4 x 4 + 1024 + 127): nextn 3, max_batch_size 4
  t.plan = "tp=1,ep=8,dp=8";
  t.concurrency = 256;
  t.run_date = "2026-03-01";
  EXPECT_EQ(batch_limits(t), L(1216, 32));    // per rank: nextn 1, max_batch_size 256 / 8
  t.experts_dtype = "fp4";
  t.plan = "tp=1,ep=4,dp=4";
  t.concurrency = 32;
  t.run_date = "2026-01-14";                  // before 2026-02-06: CONC / TP, TP the replica's 4 GPUs
  EXPECT_EQ(batch_limits(t), L(1216, 8));     // ceil64(2 x 8 + 1024 + 127)

  // The servers' memory: SGLang's --mem-fraction-static, TensorRT-LLM's fraction of what the weights leave.
  r.system = "hgx-b200";
  r.experts_dtype = "fp8";
  r.plan = "tp=4,ep=1";
  apply_inferencex_batch_limits(r);
  EXPECT_DOUBLE_EQ(r.memory_fraction, 0.95);  // dsr1_fp8_b200.sh's TP 4 branch
  EXPECT_DOUBLE_EQ(r.kv_free_memory_fraction, 0);
  t.run_date = "2026-05-18";
  apply_inferencex_batch_limits(t);
  EXPECT_DOUBLE_EQ(t.kv_free_memory_fraction, 0.8);  // dsr1_fp4_b200_trt_mtp.sh
  EXPECT_DOUBLE_EQ(t.memory_fraction, 0);
  t = r1_row_at("trtllm", "hgx-b200", "fp8", "tp=4,ep=1", 8192, 32);
  t.run_date = "2026-05-18";
  apply_inferencex_batch_limits(t);
  EXPECT_DOUBLE_EQ(t.kv_free_memory_fraction, 0.75);  // dsr1_fp8_b200_trt.sh: TP 4 at 8k/1k
  t.system = "hgx-h200";
  t.plan = "tp=8,ep=1";
  apply_inferencex_batch_limits(t);
  EXPECT_DOUBLE_EQ(t.kv_free_memory_fraction, 0.75);  // dsr1_fp8_h200_trt.sh

  MeasuredRun v = r1_row("vllm", "hgx-h100", "fp8");
  v.model = "gpt-oss-120b";
  EXPECT_EQ(batch_limits(v), L(0, 0));
}

// serving-points-2 rows take their run date from the notes' "CI run YYYY-MM-DD"; the shipped
// InferenceX TensorRT-LLM DPA rows carry the balance.
TEST(MeasuredSources, ServingPoints2RowsCarryTheirRunDateAndContextWait) {
  int dated = 0, balanced = 0, batch_waiting = 0;
  for (const MeasuredRun& r : shipped_serving_points_2().runs) {
    if (r.id == "IXF-mi300x-sglang-fp8-none-agg-1k1k-tp8ep1-c4") {
      EXPECT_EQ(r.run_date, "2026-05-18");
      EXPECT_EQ(r.max_batch_tokens, 131072);  // dsr1_fp8_mi300x.sh's prefill budget
    }
    dated += !r.run_date.empty();
    balanced += r.balance_timeout_steps == 60;
    batch_waiting += r.batch_wait_steps == 40;
  }
  EXPECT_GT(dated, 200);
  EXPECT_GT(balanced, 0);
  EXPECT_GT(batch_waiting, 0);
}

// TensorRT-LLM's best-practice blog's max-throughput runs ran no MTP ("since it does not use MTP"):
// they map at their stated trtllm-bench limits and KV fraction, their "[w/ ctx]" per-user figure
// left out; the blog's min-latency rows keep their stated method.
TEST(MeasuredSources, BlogMaxThroughputRowsRunTheirStatedLimitsWithoutDrafts) {
  const auto find = shipped_row;
  // "TP8 EP8, attention DP, max_batch_size 896, max_num_tokens 2048", --kv_cache_free_gpu_mem_fraction 0.93.
  const MeasuredRun* fp8kv = find("TRTBP-B200-MAXTP-FP8KV");
  ASSERT_NE(fp8kv, nullptr);
  EXPECT_EQ(fp8kv->plan, "tp=1,ep=8,dp=8");
  EXPECT_FALSE(fp8kv->speculative);
  EXPECT_TRUE(fp8kv->trtllm_bench);
  EXPECT_EQ(fp8kv->max_sequences, 896);
  EXPECT_EQ(fp8kv->max_batch_tokens, 2048);
  EXPECT_DOUBLE_EQ(fp8kv->kv_free_memory_fraction, 0.93);
  EXPECT_TRUE(std::isnan(test::metric_of(*fp8kv, "agent_output_tok_s")));
  EXPECT_NEAR(test::metric_of(*fp8kv, "output_tok_s_per_gpu"), 5393.2755, 1e-9);
  const MeasuredRun* h200 = find("TRTBP-H200-MAXTP");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->max_sequences, 128);
  EXPECT_EQ(h200->max_batch_tokens, 1151);
  EXPECT_DOUBLE_EQ(h200->kv_free_memory_fraction, 0.8);
  const MeasuredRun* minlat = find("TRTBP-B200-MINLAT");
  ASSERT_NE(minlat, nullptr);
  EXPECT_TRUE(minlat->speculative);
  EXPECT_FALSE(minlat->trtllm_bench);
  EXPECT_FALSE(std::isnan(test::metric_of(*minlat, "agent_output_tok_s")));
}

// agentsim's own schema refuses `csv` (read as m.csv) with a message containing `where`.
void expect_own_schema_error(const std::string& csv, const std::string& where) {
  std::istringstream in(csv);
  try {
    read_measured_runs(in, "m.csv");
    FAIL() << "accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
  }
}

// agentsim's own schema's header with the optional columns `extra` ("a,b") after concurrency.
std::string own_schema_header(const std::string& extra) {
  return "id,source,system,model,plan,gpus,isl,osl,concurrency," + extra +
         ",output_tok_s_per_gpu,total_tok_s_per_gpu,agent_output_tok_s,ttft_s_mean,tpot_s_mean,"
         "tpot_s_median,power_w_per_gpu\n";
}

// Rows a (the optional column `extra` set to `value`) and b (it left empty), in agentsim's own
// schema with one metric (mean TTFT 0.3 s).
std::vector<MeasuredRun> own_schema_pair(const std::string& extra, const std::string& value) {
  std::istringstream in(own_schema_header(extra) +
                        "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8," + value + ",,,,0.3,,,\n" +
                        "b,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,,,0.3,,,\n");
  return read_measured_runs(in, "m.csv");
}

// agentsim's own schema states the interval in an optional column: empty is 1, below 1 an error.
TEST(MeasuredSources, OwnSchemaStreamIntervalColumn) {
  const std::string header = own_schema_header("stream_interval_tokens");
  const std::vector<MeasuredRun> runs = own_schema_pair("stream_interval_tokens", "10");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].stream_interval_tokens, 10);
  EXPECT_EQ(runs[1].stream_interval_tokens, 1);
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,0,,,,0.3,,,\n",
                          "m.csv:2: stream_interval_tokens");
}

// The server's scheduler receive interval (SGLang) is an optional column: empty is 1, below 1 an error.
TEST(MeasuredSources, OwnSchemaSchedulerRecvIntervalColumn) {
  const std::vector<MeasuredRun> runs = own_schema_pair("scheduler_recv_interval", "30");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].recv_interval_steps, 30);
  EXPECT_EQ(runs[1].recv_interval_steps, 1);
  EXPECT_THROW(own_schema_pair("scheduler_recv_interval", "0"), core::Error);
  EXPECT_THROW(own_schema_pair("scheduler_recv_interval", "2.5"), core::Error);
}

// The kernels the server ran where not its engine's (serving.kernels, e.g. TensorRT-LLM's
// moe_config.backend) are an optional column of TABLE=IMPLEMENTATION pairs; a table or
// implementation the catalog does not know is an error naming the line and column.
TEST(MeasuredSources, OwnSchemaKernelsColumn) {
  const std::vector<MeasuredRun> runs = own_schema_pair("kernels", "grouped_gemm_fp8=deepgemm; gemm_fp8=cublas");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].kernels,
            (std::map<std::string, std::string>{{"grouped_gemm_fp8", "deepgemm"}, {"gemm_fp8", "cublas"}}));
  EXPECT_TRUE(runs[1].kernels.empty());
  const std::string header = own_schema_header("kernels");
  const std::string row = "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,";
  expect_own_schema_error(header + row + "grouped_gemm_fp8=deepgem,,,,0.3,,,\n", "m.csv:2: kernels: unknown implementation 'deepgem'");
  expect_own_schema_error(header + row + "grouped_gem=deepgemm,,,,0.3,,,\n", "m.csv:2: kernels: 'grouped_gem' is not an op table");
  expect_own_schema_error(header + row + "deepgemm,,,,0.3,,,\n", "m.csv:2: kernels: expected TABLE=IMPLEMENTATION");
}

// The client's length spread and prompt count are optional columns too: empty means exact lengths
// (1) and a steady state (0 prompts); a stated prompt count makes validation run the finite run.
TEST(MeasuredSources, OwnSchemaRangeRatioAndPromptsColumns) {
  const std::vector<MeasuredRun> ratio = own_schema_pair("range_ratio", "0.8");
  ASSERT_EQ(ratio.size(), 2u);
  EXPECT_DOUBLE_EQ(ratio[0].range_ratio, 0.8);
  EXPECT_DOUBLE_EQ(ratio[1].range_ratio, 1.0);
  const std::vector<MeasuredRun> prompts = own_schema_pair("prompts", "80");
  ASSERT_EQ(prompts.size(), 2u);
  EXPECT_EQ(prompts[0].prompts, 80);
  EXPECT_EQ(prompts[1].prompts, 0);
  EXPECT_THROW(own_schema_pair("prompts", "8.5"), core::Error);  // a count, not a number
}

// The server's limits are optional columns: a row states its token budget, running-request cap and
// memory fraction (validation runs it with them); empty keeps the base experiment's (0 here).
TEST(MeasuredSources, OwnSchemaServerLimitColumns) {
  const std::vector<MeasuredRun> tokens = own_schema_pair("max_batch_tokens", "32768");
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].max_batch_tokens, 32768);
  EXPECT_EQ(tokens[1].max_batch_tokens, 0);
  EXPECT_EQ(own_schema_pair("max_sequences", "128")[0].max_sequences, 128);
  EXPECT_DOUBLE_EQ(own_schema_pair("memory_fraction", "0.82")[0].memory_fraction, 0.82);
  EXPECT_DOUBLE_EQ(own_schema_pair("memory_fraction", "0.82")[1].memory_fraction, 0);
  const std::string header = own_schema_header("memory_fraction");
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,1.5,,,,0.3,,,\n",
                          "m.csv:2: memory_fraction: expected a memory fraction in (0, 1]");
  EXPECT_THROW(own_schema_pair("max_batch_tokens", "0"), core::Error);
  EXPECT_THROW(own_schema_pair("max_sequences", "2.5"), core::Error);
}

// A disaggregated run states both replica counts in agentsim's schema; one alone, or a count below
// 1, is an error at its column.
TEST(MeasuredSources, OwnSchemaDisaggregationColumns) {
  const std::string header = own_schema_header("prefill_replicas,decode_replicas");
  std::istringstream ok(header + "a,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,2,,,,0.3,,,\n" +
                        "b,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,,,,0.3,,,\n");
  const std::vector<MeasuredRun> runs = read_measured_runs(ok, "m.csv");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].prefill_replicas, 1);
  EXPECT_EQ(runs[0].decode_replicas, 2);
  EXPECT_EQ(runs[1].prefill_replicas, 0);
  EXPECT_EQ(runs[1].decode_replicas, 0);
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,,,,,0.3,,,\n",
                          "m.csv:2: prefill_replicas: a disaggregated run states both");
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,0,,,,0.3,,,\n",
                          "m.csv:2: decode_replicas: expected a replica count");
}

// A disaggregated run may state its decode servers' batch limit and the frontend's router; they
// need the replica counts beside them, and a router is one of the two the simulator has.
TEST(MeasuredSources, OwnSchemaDecodePoolColumns) {
  const std::string header = own_schema_header("prefill_replicas,decode_replicas,decode_max_sequences,decode_router");
  std::istringstream ok(header + "a,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,2,4,round_robin,,,,0.3,,,\n" +
                        "b,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,2,,,,,,0.3,,,\n");
  const std::vector<MeasuredRun> runs = read_measured_runs(ok, "m.csv");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].decode_max_sequences, 4);
  EXPECT_TRUE(runs[0].decode_round_robin);
  EXPECT_EQ(runs[1].decode_max_sequences, 0);
  EXPECT_FALSE(runs[1].decode_round_robin);
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,4,,,,,0.3,,,\n",
                          "m.csv:2: decode_max_sequences: decode_max_sequences needs a disaggregated run");
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,2,,random,,,,0.3,,,\n",
                          "m.csv:2: decode_router: expected round_robin or least_loaded");
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,24,1024,1024,8,1,2,0,,,,,0.3,,,\n",
                          "m.csv:2: decode_max_sequences: expected a running-request cap");
}

// The server's admission: reserve or on_demand, empty for the base experiment's.
TEST(MeasuredSources, OwnSchemaAdmissionColumn) {
  const std::string header = own_schema_header("admission");
  std::istringstream ok(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,reserve,,,,0.3,,,\n" +
                        "b,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,on_demand,,,,0.3,,,\n" +
                        "c,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,,,0.3,,,\n");
  const std::vector<MeasuredRun> runs = read_measured_runs(ok, "m.csv");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].admission, "reserve");
  EXPECT_EQ(runs[1].admission, "on_demand");
  EXPECT_EQ(runs[2].admission, "");
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,eager,,,,0.3,,,\n",
                          "m.csv:2: admission: expected reserve or on_demand");
}

// The median TTFT column is optional in agentsim's schema (absent or empty: not reported) and, like
// every metric, positive where given.
TEST(MeasuredSources, OwnSchemaMedianTtftColumnIsOptional) {
  const std::string header = "id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,"
                             "total_tok_s_per_gpu,agent_output_tok_s,ttft_s_mean,ttft_s_median,tpot_s_mean,"
                             "tpot_s_median,power_w_per_gpu\n";
  std::istringstream ok(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,,0.3,0.2,,,\n" +
                        "b,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,,0.3,,,,\n");
  const std::vector<MeasuredRun> runs = read_measured_runs(ok, "m.csv");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_DOUBLE_EQ(runs[0].metrics[measured_metric_index("ttft_s_median")], 0.2);
  EXPECT_TRUE(std::isnan(runs[1].metrics[measured_metric_index("ttft_s_median")]));
  expect_own_schema_error(header + "a,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,,,,0.3,-1,,,\n",
                          "m.csv:2: ttft_s_median");
}

TEST(MeasuredSources, UnknownColumnIsAnErrorNamingFileLineAndColumn) {
  std::istringstream in("source_id,model,hardware,n_gpus,framework,precision,parallelism,isl,osl,concurrency,"
                        "total_tput_per_gpu,output_tput_per_gpu,mean_ttft_ms,p99_ttft_ms,mean_tpot_ms,median_tpot_ms,"
                        "p99_tpot_ms,mean_e2e_s,notes,colour\n");
  try {
    read_serving_points(in, "sp.csv");
    FAIL() << "accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("sp.csv:1: colour: unknown column"), std::string::npos) << e.what();
  }
  std::istringstream mr("id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,"
                        "total_tok_s_per_gpu,agent_output_tok_s,ttft_s_mean,tpot_s_mean,tpot_s_median,power_w_per_gpu,"
                        "notes,extra\n");
  EXPECT_THROW(read_measured_runs(mr, "m.csv"), core::Error);
}

}  // namespace
}  // namespace agentsim::calib
