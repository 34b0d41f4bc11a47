#include "calibration/inferencex_draft_tokens.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

int inferencex_draft_tokens(const MeasuredRun& r) {
  if (r.model != "deepseek-r1" || !r.speculative) return 0;
  if (r.engine == "sglang") return r.system == "hgx-b200" || r.system == "hgx-h200" ? 2 : 3;
  if (r.engine == "trtllm") return plan_degrees(r.plan).dp > 1 ? 1 : 3;  // 1 with attention DP
  if (r.engine == "atom") return !is_fp4_format(r.experts_dtype) && r.run_date >= "2026-04-02" ? 3 : 1;
  return 0;
}

}  // namespace agentsim::calib
