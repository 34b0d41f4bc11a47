#include "calibration/inferencex_batch_limits.hpp"

#include <algorithm>

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

namespace {

int ceil64(int tokens) { return (tokens + 63) / 64 * 64; }

void sglang(MeasuredRun& r) {
  const bool fp4 = is_fp4_format(r.experts_dtype);
  const bool l1k1k = r.isl == 1024 && r.osl == 1024, l8k1k = r.isl == 8192 && r.osl == 1024;
  if (r.system == "hgx-b200") {
    if (fp4) {
      r.max_batch_tokens = 16384;  // the default --max-prefill-tokens bounds a 32768 chunk too
      r.max_sequences = 256;
      r.memory_fraction = r.speculative && r.run_date < "2026-07-02" ? 0.82 : 0.85;
    } else if (r.speculative) {
      r.max_batch_tokens = 16384;
      r.max_sequences = 512;
      r.memory_fraction = 0.82;
    } else if (plan_degrees(r.plan).tp == 4) {
      r.max_batch_tokens = 8192;
      r.max_sequences = 32;
      r.memory_fraction = 0.95;
    } else {
      r.max_batch_tokens = 32768;
      r.max_sequences = 128;
      r.memory_fraction = 0.82;
    }
  } else if (r.system == "hgx-h200") {
    r.max_batch_tokens = 32768;
    r.max_sequences = l1k1k ? 512 : 256;
    r.memory_fraction = 0.82;
  } else if (r.system == "mi300x-8" || r.system == "mi325x-8") {
    r.max_batch_tokens = 131072;
    r.memory_fraction = 0.8;
  } else if (r.system == "mi355x-8") {
    r.max_batch_tokens = fp4 && l8k1k && r.concurrency > 32 ? 32768 : 196608;
    r.memory_fraction = 0.8;
    // dsr1_fp8_mi355x_mtp.sh sets --max-running-requests to the row's concurrency from 2026-05-20
    // (commit f0c5e8e8a, "size mi355x dsr1 mtp server limits explicitly"), before any of its rows.
    if (r.speculative && !fp4 && r.run_date >= "2026-05-20") r.max_sequences = static_cast<int>(r.concurrency);
  }
  // SGLang's speculative (EAGLE/MTP) path sets max_running_requests to 48 where the launch leaves
  // it unset (python/sglang/srt/server_args.py, _handle_speculative_decoding: "Max running requests
  // is reset to 48 for speculative decoding"). Not on MI325X: its MTP run decoded ~61 of 64 requests
  // at once with a 0.13 s median TTFT, so its server ran uncapped (header).
  if (r.speculative && r.max_sequences == 0 && r.system != "mi325x-8") r.max_sequences = 48;
}

void trtllm(MeasuredRun& r) {
  const int conc = static_cast<int>(r.concurrency);
  const PlanDegrees plan = plan_degrees(r.plan);
  const bool dp = plan.dp > 1;  // attention DP
  const bool fp8_b200 = r.system == "hgx-b200" && !is_fp4_format(r.experts_dtype);
  r.kv_free_memory_fraction = r.system == "hgx-h200" ? 0.75 : 0.8;
  if (fp8_b200 && !r.speculative && r.run_date >= "2026-01-29") {
    if (dp && r.run_date < "2026-03-27") r.kv_free_memory_fraction = 0.7;
    if (!dp && plan.tp == 4 && r.isl == 8192 && r.osl == 1024) r.kv_free_memory_fraction = 0.75;
  }
  if (fp8_b200 && r.speculative && dp && r.run_date >= "2026-02-05") r.kv_free_memory_fraction = 0.7;
  if (!r.speculative) {
    const int tokens = ceil64(conc + static_cast<int>(r.isl) + 127);
    r.max_batch_tokens = r.run_date < "2026-01-21" ? tokens : std::max(8192, tokens);  // the floor's commit
    return;
  }
  int nextn = 3, batch = conc;
  if (dp) {
    nextn = 1;
    // The scripts' TP is the replica's GPUs: attention-DP ranks ("tp8ep8d" is tp=1,ep=8,dp=8 here).
    const int tp = plan.tp * plan.dp;
    const bool b200 = r.system == "hgx-b200", fp4 = is_fp4_format(r.experts_dtype);
    if (b200 && !fp4 && r.run_date >= "2026-02-05") {
      batch = conc < 8 ? conc : conc / 8;
    } else if (b200 && fp4 && r.run_date >= "2026-02-06") {
      batch = conc < 4 ? conc : conc / 4;
    } else {
      batch = std::max(1, conc / tp);
    }
  }
  r.max_batch_tokens = ceil64((nextn + 1) * batch + static_cast<int>(r.isl) + 127);
  r.max_sequences = batch;
}

void atom(MeasuredRun& r) {
  r.max_batch_tokens = 16384;
  r.max_sequences = 512;
  r.memory_fraction = 0.9;
}

}  // namespace

void apply_inferencex_batch_limits(MeasuredRun& r) {
  r.max_batch_tokens = 0;
  r.max_sequences = 0;
  r.memory_fraction = 0;
  r.kv_free_memory_fraction = 0;
  if (r.model != "deepseek-r1") return;
  if (r.engine == "sglang") sglang(r);
  if (r.engine == "trtllm") trtllm(r);
  if (r.engine == "atom") atom(r);
}

}  // namespace agentsim::calib
