#include "calibration/inferencex_recv_interval.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

int inferencex_recv_interval_steps(const MeasuredRun& r) {
  if (r.model != "deepseek-r1" || r.engine != "sglang" || r.system != "hgx-b200") return 1;
  const bool fp8_tp4 = !is_fp4_format(r.experts_dtype) && r.plan.rfind("tp=4", 0) == 0;
  if (fp8_tp4) return 10;
  return r.concurrency >= 16 ? 30 : 10;
}

}  // namespace agentsim::calib
