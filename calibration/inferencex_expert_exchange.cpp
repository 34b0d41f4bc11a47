#include "calibration/inferencex_expert_exchange.hpp"

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

bool inferencex_expert_all_to_all(const MeasuredRun& r) {
  if (r.prefill_replicas <= 0 || r.engine != "sglang") return true;
  if (r.system != "hgx-h100" && r.system != "hgx-h200") return true;
  if (!id_names_framework(r.id, "dynamo-sglang")) return true;
  const PlanDegrees d = plan_degrees(r.plan);
  return !(d.dp > 1 && d.ep > 1);
}

}  // namespace agentsim::calib
