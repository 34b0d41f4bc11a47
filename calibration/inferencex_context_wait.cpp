#include "calibration/inferencex_context_wait.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

void apply_inferencex_context_wait(MeasuredRun& r) {
  r.balance_timeout_steps = 0;
  r.batch_wait_steps = 0;
  r.batch_wait_max_tokens_ratio = 0;
  if (r.model != "deepseek-r1" || r.engine != "trtllm") return;
  if (plan_degrees(r.plan).dp > 1) {  // attention DP
    r.balance_timeout_steps = 60;
    return;
  }
  const bool fp8_b200_no_mtp = r.system == "hgx-b200" && !is_fp4_format(r.experts_dtype) && !r.speculative;
  if (fp8_b200_no_mtp && r.isl == 1024 && r.osl == 1024 && r.concurrency >= 64 && !r.run_date.empty() &&
      r.run_date >= "2026-01-28") {
    r.batch_wait_steps = 40;
    r.batch_wait_max_tokens_ratio = 0.8;
  }
}

}  // namespace agentsim::calib
