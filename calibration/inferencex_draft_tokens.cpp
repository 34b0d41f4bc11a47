#include "calibration/inferencex_draft_tokens.hpp"

#include <string>

namespace agentsim::calib {

int inferencex_draft_tokens(const MeasuredRun& r) {
  if (r.model != "deepseek-r1" || !r.speculative) return 0;
  if (r.engine == "sglang") return r.system == "hgx-b200" || r.system == "hgx-h200" ? 2 : 3;
  // A mapped plan is canonical (measured_names.hpp): "dp=" only for attention DP > 1.
  if (r.engine == "trtllm") return r.plan.find("dp=") != std::string::npos ? 1 : 3;
  return 0;
}

}  // namespace agentsim::calib
