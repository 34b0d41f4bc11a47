// `explain --compare`'s comparison works for every pair of catalog systems on every catalog model
// (a small decode batch), and its ratios are those of the two single-system steps: the whole
// step's and each op's, matched by layer kind and op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "experiments/config/catalog.hpp"
#include "tests/experiments/run/catalog_fixture.hpp"
#include "experiments/run/step_comparison.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/replica_plan.hpp"

namespace agentsim::exp {
namespace {



TEST(StepComparison, EveryPairOfCatalogSystemsOnEveryModelMatchesItsTwoSingleSteps) {
  const serving::StepBatch batch = serving::parse_step_batch("decode=4@1024");
  std::map<std::tuple<std::string, std::string, std::string>, serving::StepCost> single;  // model, system, plan
  auto priced = [&](const wl::ModelSpec& m, const hw::System& s, const wl::ParallelPlan& p) -> const serving::StepCost& {
    const auto key = std::make_tuple(m.name, s.name, p.to_string());
    auto it = single.find(key);
    if (it == single.end())
      it = single.emplace(key, price_step(test::repo_catalog(), AGENTSIM_SOURCE_DIR, m, s, p, batch, serving::Engine::kVllm)).first;
    return it->second;
  };
  std::size_t compared = 0;
  for (const auto& [mname, model] : test::repo_catalog().models.entries()) {
    for (const auto& [na, sa] : test::repo_catalog().systems.entries()) {
      const std::optional<wl::ParallelPlan> pa_or = test::default_plan_if_valid(model, sa);
      if (!pa_or) continue;  // the model does not fit: explain exits 2
      const wl::ParallelPlan& pa = *pa_or;
      for (const auto& [nb, sb] : test::repo_catalog().systems.entries()) {
        if (na == nb) continue;
        // As explain --compare: A's plan where valid on B, else B's own.
        wl::ParallelPlan pb = pa;
        if (!serving::check_plan(model, sb, pb).ok) {
          const std::optional<wl::ParallelPlan> own = test::default_plan_if_valid(model, sb);
          if (!own) continue;
          pb = *own;
        }
        const serving::StepCost& a = priced(model, sa, pa);
        const serving::StepCost& b = priced(model, sb, pb);
        const StepComparison c = compare_steps(a, b);
        ++compared;
        ASSERT_GT(a.total_s, 0);
        EXPECT_DOUBLE_EQ(c.ratio, b.total_s / a.total_s) << mname << " " << na << " vs " << nb;
        EXPECT_TRUE(std::isfinite(c.ratio) && c.ratio > 0) << mname << " " << na << " vs " << nb;
        // Every op of either step has its row, with that step's time and the ratio of the two.
        for (const serving::OpCost& o : a.breakdown.ops) {
          const auto it = std::find_if(c.ops.begin(), c.ops.end(),
                                       [&](const OpComparisonRow& r) { return r.layer_kind == o.layer_kind && r.op == o.op; });
          ASSERT_NE(it, c.ops.end()) << mname << " " << o.layer_kind << " " << o.op;
          ASSERT_TRUE(it->a.present);
          if (!it->b.present || it->a.time_s <= 0) continue;
          const auto ob = std::find_if(b.breakdown.ops.begin(), b.breakdown.ops.end(), [&](const serving::OpCost& x) {
            return x.layer_kind == o.layer_kind && x.op == o.op;
          });
          ASSERT_NE(ob, b.breakdown.ops.end());
          EXPECT_DOUBLE_EQ(it->ratio, ob->time_s / it->a.time_s) << mname << " " << na << " vs " << nb << " " << o.op;
          EXPECT_EQ(it->b.table, ob->note);
        }
      }
    }
  }
  EXPECT_GT(compared, 500u);  // 10 systems, 13 models: most pairs have a plan on both
}

}  // namespace
}  // namespace agentsim::exp
