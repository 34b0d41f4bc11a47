#include "calibration/inferencex_moe_backend.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

std::string inferencex_moe_implementation(const MeasuredRun& r) {
  if (r.model != "deepseek-r1" || r.engine != "trtllm" || r.system != "hgx-b200") return "";
  if (is_fp4_format(r.experts_dtype) || r.run_date.empty()) return "";
  constexpr const char* trtllm = "flashinfer-trtllm-gen";  // TRTLLM: the TRTLLM-gen fused MoE
  constexpr const char* deepgemm = "deepgemm";              // DEEPGEMM
  if (r.speculative) {
    if (r.run_date < "2026-02-05") return deepgemm;
    return plan_degrees(r.plan).dp > 1 ? deepgemm : trtllm;  // attention DP
  }
  if (r.run_date < "2025-09-18") return trtllm;
  if (r.run_date < "2026-01-29") return deepgemm;
  if (r.run_date < "2026-03-27" && r.isl == 1024 && r.osl == 8192 && r.concurrency >= 256) return deepgemm;
  return trtllm;
}

}  // namespace agentsim::calib
