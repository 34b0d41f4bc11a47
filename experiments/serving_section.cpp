#include <array>

#include "experiments/decode_helpers.hpp"
#include "experiments/serving_config.hpp"

namespace agentsim::exp {
using core::Dimension;

namespace {

constexpr std::array kServingKeys = {
    OptionSpec{"max_batch_tokens", "integer", "8192", "new tokens per step (decode + prefill chunks)"},
    OptionSpec{"max_sequences", "integer", "256", "sequences in the running batch"},
    OptionSpec{"step_overhead", "time", "0s", "fixed scheduler and launch time per step"},
    OptionSpec{"memory_fraction", "number", "0.9", "share of HBM for weights + KV cache"},
    OptionSpec{"efficiency", "map", "", "achieved fractions of peak until calibration"},
};
constexpr std::array kEfficiencyKeys = {
    OptionSpec{"compute", "number", "1.0", "achieved / peak FLOP/s"},
    OptionSpec{"memory", "number", "1.0", "achieved / peak HBM bandwidth"},
    OptionSpec{"network", "number", "1.0", "achieved / peak scale-up bandwidth"},
};

}  // namespace

std::span<const OptionSpec> serving_options() { return kServingKeys; }
std::span<const OptionSpec> efficiency_options() { return kEfficiencyKeys; }

ServingConfig decode_serving(const YamlNode* srv) {
  ServingConfig s;
  if (!srv) return s;
  srv->check_keys(kServingKeys);
  s.max_batch_tokens = bounded_int(*srv, "max_batch_tokens", 8192, 1, 1 << 24);
  s.max_sequences = static_cast<int>(bounded_int(*srv, "max_sequences", 256, 1, 1 << 20));
  s.step_overhead_s = srv->quantity_or("step_overhead", Dimension::kTime, 0.0);
  s.memory_fraction = fraction(*srv, "memory_fraction", 0.9);
  if (auto eff = srv->find("efficiency")) {
    eff->check_keys(kEfficiencyKeys);
    s.efficiency.compute = fraction(*eff, "compute", 1.0);
    s.efficiency.memory = fraction(*eff, "memory", 1.0);
    s.efficiency.network = fraction(*eff, "network", 1.0);
  }
  return s;
}

}  // namespace agentsim::exp
