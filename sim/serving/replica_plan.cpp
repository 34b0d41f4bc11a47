#include "sim/serving/replica_plan.hpp"

#include <cstdio>

#include "sim/core/error.hpp"
#include "workloads/model/footprint.hpp"
#include "workloads/model/plan_sharding.hpp"

namespace agentsim::serving {

PlanPlacement place_plan(const wl::ParallelPlan& plan) {
  PlanPlacement p;
  p.devices = plan.devices();
  for (int r = 0; r < plan.tp; ++r) p.tp_group.push_back(r);
  const int stride = plan.expert_tp();
  for (int r = 0; r < plan.ep; ++r) p.ep_group.push_back(r * stride);
  for (int g = 0; g < plan.attn_dp; ++g) p.dp_group.push_back(g * plan.tp);
  for (int s = 0; s < plan.pp; ++s) p.pp_chain.push_back(s * plan.devices_per_stage());
  return p;
}

bool spans_systems(const std::vector<int>& gpus, int accelerators) {
  if (accelerators < 1) return false;
  for (const int g : gpus) {
    if (g / accelerators != gpus.front() / accelerators) return true;
  }
  return false;
}

bool ep_spans_systems(const wl::ParallelPlan& plan, int accelerators) {
  return spans_systems(place_plan(plan).ep_group, accelerators);
}

namespace {

std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

}  // namespace

std::string plan_layout_problem(const wl::ParallelPlan& plan, const hw::System& system) {
  const int per = system.accelerators, devices = plan.devices();
  if (per < 1) return "system " + system.name + " has no accelerators";
  if (devices <= per) return {};
  const int nodes = plan.nodes(per);
  if (devices % per != 0) {
    return "needs " + std::to_string(devices) + " devices, more than the system's " + std::to_string(per) +
           ": a replica over several systems fills whole systems (a multiple of " + std::to_string(per) + ")";
  }
  if (nodes > kMaxNodes) {
    return "needs " + std::to_string(nodes) + " systems of " + std::to_string(per) + " devices; a replica spans at most " +
           std::to_string(kMaxNodes);
  }
  if (system.scale_out.nics < 1 || !(system.scale_out.nic_bw_Bps > 0)) {
    return "spans " + std::to_string(nodes) + " systems but " + system.name + " has no scale-out NICs to join them";
  }
  return {};
}

PlanCheck check_plan(const wl::ModelSpec& model, const hw::System& system, const wl::ParallelPlan& plan,
                     double memory_fraction, double min_kv_tokens) {
  PlanCheck c;
  auto reject = [&](std::string why) {
    c.ok = false;
    c.reason = "plan " + plan.to_string() + " for " + model.name + " on " + system.name + ": " + std::move(why);
    return c;
  };
  if (std::string why = plan_layout_problem(plan, system); !why.empty()) return reject(std::move(why));
  if (std::string why = wl::plan_sharding_problem(model, plan); !why.empty()) return reject(std::move(why));
  if (plan.devices() < model.min_devices) {
    return reject("uses " + std::to_string(plan.devices()) + " device(s), below the model's min_gpus of " +
                  std::to_string(model.min_devices));
  }
  const wl::Footprint f = wl::footprint(model, plan);
  c.weight_bytes_per_device = f.weight_bytes() + f.engram_hbm_bytes;
  c.kv_bytes_per_device = f.kv_bytes_per_token * min_kv_tokens;  // the footprint's is per stage already
  c.hbm_budget_bytes = system.accelerator.hbm_bytes * memory_fraction;
  if (c.weight_bytes_per_device + c.kv_bytes_per_device > c.hbm_budget_bytes) {
    char frac[16];
    std::snprintf(frac, sizeof frac, "%.2f", memory_fraction);
    const std::string engram =
        f.engram_hbm_bytes > 0 ? " (incl. Engram tables " + gb(f.engram_hbm_bytes) + " in HBM)" : "";
    return reject("weights " + gb(c.weight_bytes_per_device) + engram + " + KV of one " +
                  std::to_string(static_cast<long long>(min_kv_tokens)) + "-token sequence " +
                  gb(c.kv_bytes_per_device) + " per device exceed " + gb(system.accelerator.hbm_bytes) + " HBM x " +
                  frac);
  }
  return c;
}

wl::ParallelPlan choose_plan(const wl::ModelSpec& model, const hw::System& system, double memory_fraction,
                             double min_kv_tokens) {
  std::string last = "no candidate plan";
  const bool moe = model.ffn.experts > 0;
  // Powers of two within one system, then two and four whole systems.
  std::vector<int> sizes;
  for (int devices = 1; devices <= system.accelerators; devices *= 2) sizes.push_back(devices);
  for (int nodes : {2, 4}) sizes.push_back(nodes * system.accelerators);
  for (const int devices : sizes) {
    const bool spans = devices > system.accelerators;
    std::vector<wl::ParallelPlan> candidates;
    for (int pp = 1; pp <= devices; pp *= 2) {
      const int stage = devices / pp;
      for (int tp = stage; tp >= 1; tp /= 2) {
        wl::ParallelPlan p;
        p.tp = tp;
        p.attn_dp = stage / tp;
        p.pp = pp;
        p.ep = moe && (spans || model.ffn.experts % stage == 0) ? stage : 1;
        p.engram_on_host = model.engram.host_resident;
        candidates.push_back(p);
      }
    }
    for (const wl::ParallelPlan& p : candidates) {
      const PlanCheck c = check_plan(model, system, p, memory_fraction, min_kv_tokens);
      if (c.ok) return p;
      last = c.reason;
    }
  }
  throw core::Error("no valid plan for " + model.name + " on " + system.name + " (last tried: " + last + ")");
}

}  // namespace agentsim::serving
