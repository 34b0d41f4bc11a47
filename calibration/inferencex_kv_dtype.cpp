#include "calibration/inferencex_kv_dtype.hpp"

namespace agentsim::calib {

std::string inferencex_kv_dtype(const MeasuredRun& r) {
  if (r.model != "deepseek-r1") return "";
  if (r.prefill_replicas > 0) return r.engine == "sglang" && r.system == "mi355x-8" ? "fp8" : "";
  if (r.engine == "trtllm" || r.engine == "atom") return "fp8";
  if (r.engine != "sglang") return "";
  for (const char* s : {"hgx-b200", "hgx-b300", "mi300x-8", "mi325x-8", "mi355x-8"}) {
    if (r.system == s) return "fp8";
  }
  return "";  // H200's recipe leaves the model's BF16; other systems have no recipe here
}

}  // namespace agentsim::calib
