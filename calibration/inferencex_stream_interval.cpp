#include "calibration/inferencex_stream_interval.hpp"

namespace agentsim::calib {

int inferencex_stream_interval_tokens(const MeasuredRun& r) {
  if (r.model != "deepseek-r1") return 1;
  if (r.engine == "trtllm") return 10;
  if (r.engine != "sglang") return 1;
  if (r.system == "hgx-h200") return 10;
  if (r.system == "hgx-b200") return r.experts_dtype == "fp4" ? 10 : 30;
  return 1;  // the AMD systems' recipes leave SGLang's default
}

}  // namespace agentsim::calib
