#include "sim/serving/step_cost.hpp"

#include "hwmodels/collective.hpp"
#include "hwmodels/roofline.hpp"

namespace agentsim::serving {

StepCost step_cost(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                   const StepCostOptions& opt) {
  StepCost c;
  if (batch.empty()) return c;
  const double tp = opt.tp;
  const double new_tokens = static_cast<double>(batch.new_tokens());

  // Attended context: a decode token attends its whole context plus itself; the
  // i-th token of a prefill chunk attends cached + i tokens.
  double attended = 0;
  for (const auto& d : batch.decodes) attended += static_cast<double>(d.context_tokens) + 1.0;
  double kv_read_tokens = 0;
  for (const auto& d : batch.decodes) kv_read_tokens += static_cast<double>(d.context_tokens);
  for (const auto& p : batch.prefills) {
    const double n = static_cast<double>(p.tokens);
    const double cached = static_cast<double>(p.cached_tokens);
    attended += n * cached + n * (n + 1.0) / 2.0;
    kv_read_tokens += cached;  // the chunk's own keys are written, then read from on-chip tiles
  }

  c.flops = (model.linear_flops_per_token() * new_tokens + model.attention_flops_per_token(attended) +
             model.lm_head_flops_per_token() * static_cast<double>(batch.sampled_tokens())) /
            tp;
  c.weight_bytes = model.weight_bytes() / tp;
  c.kv_read_bytes = model.kv_bytes_per_token() * kv_read_tokens / tp;
  c.kv_write_bytes = model.kv_bytes_per_token() * new_tokens / tp;

  const hw::RooflineTime r =
      hw::roofline(system.accelerator, model.activation_dtype, c.flops,
                   c.weight_bytes + c.kv_read_bytes + c.kv_write_bytes, opt.efficiency);
  c.compute_s = r.compute_s;
  c.memory_s = r.memory_s;
  c.compute_bound = r.compute_bound();

  if (opt.tp > 1) {
    c.allreduces = 2 * model.layers;  // after attention and after the FFN
    c.allreduce_bytes = new_tokens * model.activation_bytes_per_token();
    const hw::CollectiveTime ar =
        hw::ring_all_reduce(c.allreduce_bytes, opt.tp, system.scale_up_bw_Bps * opt.efficiency.network,
                            system.scale_up_latency_s);
    c.comm_latency_s = c.allreduces * ar.latency_s;
    c.comm_transfer_s = c.allreduces * ar.transfer_s;
  }
  c.overhead_s = opt.step_overhead_s;
  c.total_s = r.bound_s() + c.comm_latency_s + c.comm_transfer_s + c.overhead_s;
  return c;
}

}  // namespace agentsim::serving
