// The dominance property over the whole catalog: where one accelerator is at least another on
// every peak, bandwidth and capacity (and at most on the scale-up latency), every op of a grid of
// shapes and every whole decode and prefill step of every catalog model under the same engine is
// no slower on it; where its system also draws no more provisioned power, its tokens per second
// per provisioned MW (the read-offs' denominator) at a fixed batch are no lower. Pairs are derived
// from the catalog, not listed. Exceptions backed by a published measurement would be listed in
// docs/calibration.md, "Dominance exceptions" (none today).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "experiments/config/catalog.hpp"
#include "tests/experiments/run/catalog_fixture.hpp"
#include "experiments/run/profile_efficiency.hpp"
#include "experiments/run/step_comparison.hpp"
#include "hwmodels/power_model.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/replica_plan.hpp"

namespace agentsim::exp {
namespace {

constexpr double kTol = 1e-9;  // relative: equal hardware prices equal times


// a >= b on every peak b has, HBM bandwidth and capacity, scale-up bandwidth, and a's scale-up
// latency <= b's; the same vendor and architecture (the same kernels run on both).
bool dominates(const hw::Accelerator& a, const hw::Accelerator& b) {
  if (a.name == b.name || a.vendor != b.vendor || a.architecture.empty() || a.architecture != b.architecture) return false;
  for (const auto& [d, peak] : b.peak_flops) {
    const auto it = a.peak_flops.find(d);
    if (it == a.peak_flops.end() || it->second < peak) return false;
  }
  return a.hbm_bw_Bps >= b.hbm_bw_Bps && a.hbm_bytes >= b.hbm_bytes && a.scale_up_bw_Bps >= b.scale_up_bw_Bps &&
         a.scale_up_latency_s <= b.scale_up_latency_s;
}

// The systems: the same topology and size, a's accelerator dominating, and its host link,
// host memory and scale-out at least b's.
bool system_dominates(const hw::System& a, const hw::System& b) {
  return dominates(a.accelerator, b.accelerator) && a.topology == b.topology && a.accelerators == b.accelerators &&
         a.scale_up_bw_Bps >= b.scale_up_bw_Bps && a.scale_up_latency_s <= b.scale_up_latency_s &&
         a.host.gpu_link_bw_Bps >= b.host.gpu_link_bw_Bps && a.host.memory_bw_Bps >= b.host.memory_bw_Bps &&
         a.scale_out.nics * a.scale_out.nic_bw_Bps >= b.scale_out.nics * b.scale_out.nic_bw_Bps;
}

std::vector<std::pair<const hw::Accelerator*, const hw::Accelerator*>> accelerator_pairs() {
  std::vector<std::pair<const hw::Accelerator*, const hw::Accelerator*>> out;
  for (const auto& [na, a] : test::repo_catalog().accelerators.entries()) {
    for (const auto& [nb, b] : test::repo_catalog().accelerators.entries()) {
      if (dominates(a, b)) out.emplace_back(&a, &b);
    }
  }
  return out;
}

const char* kEngines[] = {"vllm", "sglang", "trtllm"};


// One op's roofline time on `acc` with `eff`'s efficiencies.
double op_time(const serving::KernelEfficiency& eff, const hw::Accelerator& acc, const serving::KernelShape& s) {
  const double peak = acc.peak_flops_for(s.dtype);
  const double t_c = s.flops > 0 ? s.flops / (peak * eff.compute(s).value) : 0;
  const double t_m = s.bytes > 0 ? s.bytes / (acc.hbm_bw_Bps * eff.memory(s).value) : 0;
  return std::max(t_c, t_m);
}

std::vector<serving::KernelShape> op_grid(const hw::Accelerator& b) {
  std::vector<serving::KernelShape> out;
  const double nk[][2] = {{2112, 7168}, {4096, 4096}, {7168, 2048}, {8192, 8192}, {24576, 1536}};
  for (const auto& [d, peak] : b.peak_flops) {
    const double w = hw::bytes_per_element(d);
    for (double m : {1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0}) {
      for (const auto& x : nk) {
        serving::KernelShape g;
        g.kind = serving::KernelKind::kGemm;
        g.dtype = d;
        g.m = m, g.n = x[0], g.k = x[1];
        g.flops = 2 * m * x[0] * x[1];
        g.bytes = x[0] * x[1] * w + m * x[1] * w + m * x[0] * 2;
        out.push_back(g);
        for (double groups : {8.0, 32.0, 256.0}) {
          serving::KernelShape e = g;
          e.kind = serving::KernelKind::kGroupedGemm;
          e.groups = groups;
          e.m = std::max(1.0, m / groups);
          e.weight_bytes = groups * x[0] * x[1] * w;
          e.flops = 2 * groups * e.m * x[0] * x[1];
          e.bytes = e.weight_bytes + groups * e.m * (x[1] * w + x[0] * 2);
          out.push_back(e);
        }
      }
    }
  }
  for (double batch : {1.0, 8.0, 64.0, 256.0}) {
    for (double context : {256.0, 4096.0, 32768.0}) {
      serving::KernelShape a;
      a.kind = serving::KernelKind::kAttentionDecode;
      a.batch = batch, a.context = context;
      a.bytes = batch * context * 70e3;  // ~70 KB of KV a token (a GQA model's layer stack)
      a.flops = batch * context * 4 * 8192;
      out.push_back(a);
      serving::KernelShape p = a;
      p.kind = serving::KernelKind::kAttentionPrefill;
      p.batch = 1, p.context = context;
      p.flops = 4.0 * context * context * 8192 / 2;
      p.bytes = context * 70e3;
      out.push_back(p);
    }
  }
  for (double bytes : {1e6, 1e8, 1e10}) {
    serving::KernelShape o;
    o.kind = serving::KernelKind::kOther;
    o.bytes = bytes;
    out.push_back(o);
  }
  return out;
}

std::string shape_text(const serving::KernelShape& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "kind %d %s m %g n %g k %g groups %g batch %g context %g bytes %g",
                static_cast<int>(s.kind), std::string(hw::to_string(s.dtype)).c_str(), s.m, s.n, s.k, s.groups, s.batch,
                s.context, s.bytes);
  return buf;
}

TEST(Dominance, PairsAreDerivedFromTheCatalog) {
  std::vector<std::string> names;
  for (const auto& [a, b] : accelerator_pairs()) names.push_back(a->name + ">" + b->name);
  for (const char* want : {"h200>h100-sxm", "b300>b200", "gb300>gb200", "mi325x>mi300x"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  // Not dominance: another vendor, or a slower scale-up hop (GB200's 2 us against B200's 1.5 us).
  for (const char* not_want : {"gb200>b200", "mi355x>mi300x", "h100-sxm>h200"})
    EXPECT_EQ(std::find(names.begin(), names.end(), not_want), names.end()) << not_want;
}

TEST(Dominance, TheDominantAcceleratorIsNeverSlowerOnAnyOp) {
  std::vector<std::string> violations;
  std::size_t checked = 0;
  for (const auto& [a, b] : accelerator_pairs()) {
    for (const char* engine : kEngines) {
      const auto ea = load_profile_efficiency(*a, AGENTSIM_SOURCE_DIR, {}, engine);
      const auto eb = load_profile_efficiency(*b, AGENTSIM_SOURCE_DIR, {}, engine);
      ASSERT_TRUE(ea && eb);
      for (const serving::KernelShape& s : op_grid(*b)) {
        const double ta = op_time(*ea, *a, s), tb = op_time(*eb, *b, s);
        ++checked;
        if (ta > tb * (1 + kTol)) {
          char buf[512];
          std::snprintf(buf, sizeof buf, "%s over %s (%s): %s: %.4g s > %.4g s (%s | %s)", a->name.c_str(),
                        b->name.c_str(), engine, shape_text(s).c_str(), ta, tb, ea->compute(s).note.c_str(),
                        eb->compute(s).note.c_str());
          violations.push_back(buf);
        }
      }
      for (bool graph : {false, true}) {
        const double fa = ea->launch_floor(graph).time_s, fb = eb->launch_floor(graph).time_s;
        if (fa > fb * (1 + kTol)) violations.push_back(a->name + " over " + b->name + ": launch floor");
      }
    }
  }
  EXPECT_GT(checked, 1000u);
  // One line per (pair, engine, op kind, dtype) with its count, then the first 40 in full.
  std::map<std::string, std::size_t> by_kind;
  for (const std::string& v : violations) ++by_kind[v.substr(0, v.find(" m "))];
  for (const auto& [k, n] : by_kind) ADD_FAILURE() << n << " x " << k;
  for (std::size_t i = 0; i < violations.size() && i < 40; ++i) ADD_FAILURE() << violations[i];
  EXPECT_TRUE(violations.empty()) << violations.size() << " ops slower on the dominant accelerator";
}

TEST(Dominance, TheDominantSystemIsNeverSlowerOnAWholeStepOfAnyModel) {
  std::vector<std::string> violations;
  std::size_t checked = 0, pairs = 0;
  for (const auto& [na, sa] : test::repo_catalog().systems.entries()) {
    for (const auto& [nb, sb] : test::repo_catalog().systems.entries()) {
      if (!system_dominates(sa, sb)) continue;
      ++pairs;
      // Per provisioned MW too where a's system is provisioned no higher (the read-offs' denominator).
      const bool no_more_power = hw::provisioned_power_w(sa) <= hw::provisioned_power_w(sb) &&
                                 sa.accelerator.tdp_w <= sb.accelerator.tdp_w;
      for (const auto& [name, model] : test::repo_catalog().models.entries()) {
        const std::optional<wl::ParallelPlan> plan_or = test::default_plan_if_valid(model, sb);
        if (!plan_or || !serving::check_plan(model, sa, *plan_or).ok) continue;  // the model does not fit
        const wl::ParallelPlan& plan = *plan_or;
        for (const char* engine_name : kEngines) {
          const serving::Engine engine = *core::from_name(serving::kEngineNames, engine_name);
          for (const char* batch_text : {"decode=64@4096", "decode=4@1024", "prefill=1x4096@0"}) {
            const serving::StepBatch batch = serving::parse_step_batch(batch_text);
            const serving::StepCost ca = price_step(test::repo_catalog(), AGENTSIM_SOURCE_DIR, model, sa, plan, batch, engine);
            const serving::StepCost cb = price_step(test::repo_catalog(), AGENTSIM_SOURCE_DIR, model, sb, plan, batch, engine);
            ++checked;
            const double per_mw_a = ca.breakdown.tokens_per_step / ca.total_s / hw::provisioned_power_w(sa);
            const double per_mw_b = cb.breakdown.tokens_per_step / cb.total_s / hw::provisioned_power_w(sb);
            if (ca.total_s > cb.total_s * (1 + kTol) || (no_more_power && per_mw_a < per_mw_b * (1 - kTol))) {
              const StepComparison c = compare_steps(cb, ca);
              std::string worst;
              double worst_ratio = 0;
              for (const OpComparisonRow& r : c.ops) {
                if (r.ratio > worst_ratio) {
                  worst_ratio = r.ratio;
                  worst = r.layer_kind + " " + r.op + " (" + r.a.table + " | " + r.b.table + ")";
                }
              }
              char buf[768];
              std::snprintf(buf, sizeof buf, "%s over %s, %s, %s, %s, plan %s: %.4f ms > %.4f ms; worst op x%.3f: %s",
                            sa.name.c_str(), sb.name.c_str(), model.name.c_str(), engine_name, batch_text,
                            plan.to_string().c_str(), ca.total_s * 1e3, cb.total_s * 1e3, worst_ratio, worst.c_str());
              violations.push_back(buf);
            }
          }
        }
      }
    }
  }
  EXPECT_GE(pairs, 3u);  // three system pairs of the catalog qualify today (hgx-h200 over hgx-h100 among them)
  EXPECT_GT(checked, 100u);
  for (std::size_t i = 0; i < violations.size() && i < 60; ++i) ADD_FAILURE() << violations[i];
  EXPECT_TRUE(violations.empty()) << violations.size() << " steps slower on the dominant system";
}

}  // namespace
}  // namespace agentsim::exp
