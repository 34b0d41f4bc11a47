#include "calibration/inferencex_context_wait.hpp"

#include <string>

namespace agentsim::calib {
namespace {

// The plan's attention-DP ranks ("tp=1,ep=8,dp=8" -> 8); 1 without "dp=".
int attention_dp(const std::string& plan) {
  const std::size_t at = plan.find("dp=");
  if (at == std::string::npos) return 1;
  try {
    return std::stoi(plan.substr(at + 3));
  } catch (const std::exception&) {
    return 1;
  }
}

}  // namespace

void apply_inferencex_context_wait(MeasuredRun& r) {
  r.balance_timeout_steps = 0;
  r.batch_wait_steps = 0;
  r.batch_wait_max_tokens_ratio = 0;
  if (r.model != "deepseek-r1" || r.engine != "trtllm") return;
  if (attention_dp(r.plan) > 1) {
    r.balance_timeout_steps = 60;
    return;
  }
  const bool fp8_b200_no_mtp = r.system == "hgx-b200" && r.experts_dtype != "fp4" && !r.speculative;
  if (fp8_b200_no_mtp && r.isl == 1024 && r.osl == 1024 && r.concurrency >= 64 && !r.run_date.empty() &&
      r.run_date >= "2026-01-28") {
    r.batch_wait_steps = 40;
    r.batch_wait_max_tokens_ratio = 0.8;
  }
}

}  // namespace agentsim::calib
