#include "calibration/inferencex_stream_interval.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

int inferencex_stream_interval_tokens(const MeasuredRun& r) {
  if (r.model != "deepseek-r1") return 1;
  if (r.engine == "trtllm") return 10;
  if (r.engine != "sglang") return 1;
  if (r.system == "hgx-h200") return 10;
  if (r.system == "hgx-b200") return is_fp4_format(r.experts_dtype) ? 10 : 30;
  return 1;  // the AMD systems' recipes leave SGLang's default
}

}  // namespace agentsim::calib
