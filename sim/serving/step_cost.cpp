#include "sim/serving/step_cost.hpp"

#include "sim/serving/step_coster.hpp"

namespace agentsim::serving {

std::string_view to_string(Overlap o) { return core::name_of(kOverlapNames, o); }

std::string_view to_string(Cause c) {
  switch (c) {
    case Cause::kCompute: return "compute";
    case Cause::kHbm: return "hbm";
    case Cause::kHostLink: return "host_link";
    case Cause::kNetwork: return "network";
    case Cause::kFloor: return "floor";
    case Cause::kOverhead: return "overhead";
  }
  return "compute";
}

StepCost step_cost(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                   const StepCostOptions& opt) {
  return StepCoster::price_once(batch, model, system, opt, true);
}

}  // namespace agentsim::serving
