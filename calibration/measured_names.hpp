#pragma once
// Maps the free text of published measurements to catalog names and run options:
// model and hardware names, precision, parallelism, speculative method and engine.
// Each returns the mapping or a reason it cannot be mapped (the row is then skipped).
#include <optional>
#include <string>
#include <string_view>

namespace agentsim::calib {

struct Mapped {
  std::string value;   // the catalog name / plan text / engine name, empty when unmapped
  std::string reason;  // why not, when unmapped
  bool ok() const { return reason.empty(); }
};

// "DeepSeek-R1-0528 (FP4-V2)" -> deepseek-r1, "GPT-OSS-120B" -> gpt-oss-120b,
// "Llama-3.3-70B" -> llama-3.1-70b (the same architecture), ... (table in measured_names.cpp).
Mapped map_model(std::string_view text);
// "H200" -> hgx-h200, "GB200" -> gb200-nvl72, "MI355X" -> mi355x-8, ...
Mapped map_hardware(std::string_view text);
// "TP8 EP1" -> tp=8,ep=1; "TP8 EP8 DPA" -> dp=8,ep=8; "DEP4" -> dp=4,ep=4; "TP4" -> tp=4;
// "TP8 attention, MoE TP4 EP2" -> tp=8,ep=2. Disaggregated (map_disaggregated) and free-text plans
// are unmapped.
Mapped map_plan(std::string_view text);
// Whether one replica's plan text states attention data parallelism, as map_plan reads it: "DEPn",
// " DPA" after its degrees, or ", attention DP" among its settings ("TP1 EP1 DPA" -> true).
bool states_attention_dp(std::string_view text);
// "disagg P 1x(TP4 EP4 DPA) + D 2x(TP8 EP8)" -> the decode replicas' plan (dp=4,ep=4 prefill,
// tp=8,ep=8 decode) and each role's replica count. A row that states no plan for a role is unmapped.
struct DisaggregatedPlan {
  Mapped plan;               // the decode replicas' plan
  std::string prefill_plan;  // the prefill replicas' plan (canonical)
  int prefill_replicas = 0, decode_replicas = 0;
  bool prefill_attention_dp = false, decode_attention_dp = false;  // each role's text states attention DP
};
DisaggregatedPlan map_disaggregated(std::string_view text);
// One role's replica measured alone (the wide-EP set): "prefill-only: 4 nodes EP32, DP attention,
// ... TBO" with "16384 tokens/device batch" in the notes -> plan tp=1,ep=32,dp=32, scenario
// "prefill-only", 16384 tokens per device a step, two-batch overlap; "decode-only: 9 nodes EP72 ..."
// with "Batch size 256 per device" -> "decode-only", 256 sequences per device. `reason` when the
// text states no EP degree over nodes, no DP attention or no batch per device.
struct RoleRun {
  std::string plan, scenario, reason;
  long long batch_per_device = 0;
  bool two_batch_overlap = false;
};
RoleRun map_role_run(std::string_view plan_text, std::string_view notes);
// "tp=8" -> "tp=8,ep=1"; "dp=8,ep=8" -> "tp=1,ep=8,dp=8": one spelling per plan (for de-duplication);
// a plan without an all-to-all keeps its ",a2a=0".
std::string canonical_plan(std::string_view text);
// The degrees a plan's "tp=.., ep=.., dp=.., pp=.." text names; 1 for each it leaves out.
struct PlanDegrees {
  int tp = 1, ep = 1, dp = 1, pp = 1;
  bool all_to_all = true;  // false: "a2a=0", the expert exchange by all-gather and reduce-scatter
};
PlanDegrees plan_degrees(std::string_view text);
// "SGLang v0.5.7", "Dynamo + SGLang ..." -> sglang; "TensorRT-LLM ..." -> trtllm; "vLLM ..." -> vllm;
// "rocm/atom:...", "AMD ATOM" -> atom: the engines with a host-time model (serving::kEngineNames),
// listed in kHostModelEngines for the reason a row of another engine is unmapped.
Mapped map_engine(std::string_view text);
inline constexpr std::string_view kHostModelEngines = "vllm, sglang, trtllm, atom";
// Whether an InferenceX fixture row's id ("IXF-<gpu>-<framework>-<precision>-...", serving-points-2
// PROVENANCE.md) names `framework` ("dynamo", "dynamo-sglang", "sglang-disagg") as whole parts.
bool id_names_framework(std::string_view id, std::string_view framework);
// "none" -> off ("0"), "MTP..." / "EAGLE MTP ..." -> on ("1"); empty or other methods unmapped.
Mapped map_speculative(std::string_view text);
// Draft tokens a step a speculative method's text states ("MTP nextn=2 ..." -> 2); 0 when it states none.
int stated_draft_tokens(std::string_view text);

struct Precision {
  std::string weights, experts, kv;  // nvfp4 | mxfp4 | fp4 | fp8 | bf16; "" = the catalog model's
  std::string reason;                // unmapped when not empty
};
// "FP8" -> fp8 weights and experts; "NVFP4" -> nvfp4 experts, "MXFP4" -> mxfp4, another "FP4"
// -> fp4 (the model card's FP4 scaling); "BF16" -> bf16; "... FP8 KV ..." -> fp8 KV; "" / "not
// stated" -> the catalog's.
Precision map_precision(std::string_view text);
// True for the FP4 formats map_precision gives (fp4, nvfp4, mxfp4).
bool is_fp4_format(std::string_view format);

}  // namespace agentsim::calib
