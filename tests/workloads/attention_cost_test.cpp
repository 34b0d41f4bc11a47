// PreparedAttention (which attention_cost is built on): the whole KV a chunk can stream
// equals the growing part plus the bounded part, bit for bit, for every layer kind of
// every catalog model, both phases and contexts around the windows, top-k caps and
// compression ratios. The per-token formulas are checked against hand values in
// batch_work_test, model_kv_test and step_cost_test.
#include "workloads/attention_cost.hpp"

#include <gtest/gtest.h>

#include "experiments/catalog.hpp"
#include "workloads/layer_stack.hpp"

namespace agentsim::wl {
namespace {

TEST(PreparedAttention, WholeBytesAreGrowthPlusBoundedForEveryCatalogLayerKind) {
  static const exp::Catalog catalog = exp::load_catalog(AGENTSIM_SOURCE_DIR);
  const double contexts[] = {0, 0.5, 1, 3.75, 127, 128, 129, 2047.5, 2048, 4096, 8191, 8192, 100000, 1048577};
  int checked = 0;
  for (const std::string& name : catalog.models.names()) {
    const ModelSpec& m = catalog.models.get(name);
    for (const LayerKind& k : layer_stack(m)) {
      for (Phase phase : {Phase::kPrefill, Phase::kDecode}) {
        const PreparedAttention p(m, k.attention, phase);
        for (double ctx : contexts) {
          SCOPED_TRACE(name + " " + std::string(to_string(k.attention)) + " ctx " + std::to_string(ctx));
          EXPECT_EQ(p.whole_bytes(ctx), kv_growth_bytes_per_token(m, k.attention) * ctx +
                                            kv_bounded_bytes(m, k.attention, ctx));
          ++checked;
        }
      }
    }
  }
  // At least one kind per model, 2 phases, 14 contexts.
  EXPECT_GE(checked, static_cast<int>(catalog.models.size()) * 2 * 14);
}

}  // namespace
}  // namespace agentsim::wl
