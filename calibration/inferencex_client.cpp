#include "calibration/inferencex_client.hpp"

#include <algorithm>

#include "calibration/inferencex_batch_limits.hpp"
#include "calibration/inferencex_disagg_drafts.hpp"
#include "calibration/inferencex_context_wait.hpp"
#include "calibration/inferencex_disagg_limits.hpp"
#include "calibration/inferencex_draft_tokens.hpp"
#include "calibration/inferencex_expert_exchange.hpp"
#include "calibration/inferencex_kv_dtype.hpp"
#include "calibration/inferencex_moe_backend.hpp"
#include "calibration/inferencex_overlap_scheduler.hpp"
#include "calibration/inferencex_recv_interval.hpp"
#include "calibration/inferencex_stream_interval.hpp"

namespace agentsim::calib {

void apply_inferencex_run(MeasuredRun& r) {
  r.range_ratio = kInferenceXRangeRatio;
  r.prompts = kInferenceXPromptsPerConcurrency * static_cast<long long>(r.concurrency);
  if (r.prefill_replicas > 0) {
    // Multi-node: the recipes above are the single-node ones; the server runs the engine's defaults
    // but for the KV format, the decode servers' batch limit and the frontend's router its
    // multi-node recipe states.
    r.prompts = std::max(kInferenceXDisaggregatedMinPrompts, r.prompts);
    if (r.kv_dtype.empty()) r.kv_dtype = inferencex_kv_dtype(r);
    apply_inferencex_disagg_limits(r);
    apply_inferencex_disagg_drafts(r);
    if (!inferencex_expert_all_to_all(r)) r.plan += ",a2a=0";
    return;
  }
  r.stream_interval_tokens = inferencex_stream_interval_tokens(r);
  r.recv_interval_steps = inferencex_recv_interval_steps(r);
  r.overlap_scheduler_off = inferencex_overlap_scheduler_off(r);
  apply_inferencex_context_wait(r);
  apply_inferencex_batch_limits(r);
  r.draft_tokens = inferencex_draft_tokens(r);
  if (const std::string moe = inferencex_moe_implementation(r); !moe.empty()) r.kernels["grouped_gemm_fp8"] = moe;
  if (r.kv_dtype.empty()) r.kv_dtype = inferencex_kv_dtype(r);
}

}  // namespace agentsim::calib
