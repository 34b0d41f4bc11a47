#include "calibration/inferencex_overlap_scheduler.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

bool inferencex_overlap_scheduler_off(const MeasuredRun& r) {
  return r.model == "deepseek-r1" && r.engine == "sglang" && r.speculative &&
         (r.system == "hgx-b200" || r.system == "hgx-b300") && !is_fp4_format(r.experts_dtype);
}

}  // namespace agentsim::calib
