// Decode TPOT of the measured serving points the step cost can address alone
// (experiments/validation/measured/serving-points, vendored with its PROVENANCE.md), predicted
// with the default efficiencies of the example experiment (compute 0.7,
// memory 0.8, network 0.8, 2 ms step overhead) and CUDA/HIP graphs on (both
// SGLang and vLLM replay decode from graphs by default). No per-point tuning.
//
// Mechanism: a request's mean TPOT in a 1k/1k closed-loop benchmark is the
// decode step at concurrency C with the mean context isl + osl/2, plus the
// prefill steps of the other requests spread over its osl tokens: C prompts
// of isl tokens arrive per osl decode steps, each priced as its own step.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "sim/serving/step_cost.hpp"

namespace agentsim::serving {
namespace {

// What is asserted is independent of the model's fit: every DeepSeek-R1 point's predicted TPOT
// is at least the HBM floor computed by hand from the model card and the H200 datasheet
// (r1_hbm_floor_s below), and predicted TPOT rises with concurrency on both models. The
// prediction errors are printed, not bounded: how far the model is from measured runs is
// reported by `agentsim validate --cv` over every mapped row (docs/validation.md; the current
// figures in docs/results/validation.md); the issue #15 target for this step (within 10% of the measured 34.6 ms at
// concurrency 64) is not met (docs/step-cost.md, "Validation").

// The least bytes one H200 of a TP8 DeepSeek-R1 replica reads per decode step of C sequences at
// context L, at 1 byte per parameter and per KV value, over the datasheet 4.8 TB/s
// (hwmodels/catalog/accelerators/h200.yaml cites NVIDIA's H200 page). DeepSeek-V3/R1 card
// (github.com/deepseek-ai/DeepSeek-V3 config.json): 61 layers, 58 of them MoE with 256 routed
// experts (top 8) of 3 x 7168 x 2048 = 44.04 M parameters; 671 B parameters in all, so
// 671 B - 58 x 256 x 44.04 M = 17.1 B outside the routed experts, less the 0.93 B embedding table
// (129280 x 7168) that a step reads only C rows of: 16.2 B, split over 8 GPUs. Routed experts
// touched by C tokens: 256 (1 - (1 - 8/256)^C) per layer, also split over 8. MLA caches 512 + 64
// latent values per token per layer, which every TP rank reads whole.
double r1_hbm_floor_s(int concurrency, double context) {
  const double c = concurrency;
  const double dense_params = 671e9 - 58 * 256 * 44.04e6 - 129280.0 * 7168;
  const double touched = 256 * (1 - std::pow(1 - 8.0 / 256, c));
  const double routed_params = 58 * touched * 44.04e6;
  const double kv_values = c * context * 576 * 61;
  return ((dense_params + routed_params) / 8 + kv_values) / 4.8e12;
}

struct Row {
  std::string model, hardware, parallelism;
  int isl = 0, osl = 0, concurrency = 0;
  double tpot_ms = 0;
};

std::vector<Row> addressable_rows() {
  std::ifstream in(AGENTSIM_SOURCE_DIR "/experiments/validation/measured/serving-points/serving_points.csv");
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    if (f.size() < 17) continue;
    Row r{f[1], f[2], f[6], 0, 0, 0, 0};
    const bool r1 = r.model == "DeepSeek-R1-0528" && r.hardware == "H200" && r.parallelism == "TP8 EP1";
    const bool oss = r.model == "gpt-oss-120b" && r.hardware == "MI300X" && r.parallelism == "TP1";
    if (!r1 && !oss) continue;
    r.isl = std::stoi(f[7]);
    r.osl = std::stoi(f[8]);
    r.concurrency = std::stoi(f[9]);
    r.tpot_ms = !f[14].empty() ? std::stod(f[14]) : std::stod(f[15]);  // mean, else median
    rows.push_back(r);
  }
  return rows;
}

double predict_tpot_s(const Row& r, const serving::test::FixtureCatalog& cat) {
  const bool r1 = r.model == "DeepSeek-R1-0528";
  const wl::ModelSpec& m = cat.models.get(r1 ? "deepseek-r1" : "gpt-oss-120b");
  const hw::System& s = cat.systems.get(r1 ? "hgx-h200" : "mi300x-8");
  StepCostOptions o;
  o.efficiency = {0.7, 0.8, 0.8};
  o.step_overhead_s = 2e-3;
  o.cuda_graph = true;
  wl::ParallelPlan plan;
  plan.tp = r1 ? 8 : 1;
  o.plan = plan;
  o.collectives = std::make_shared<const CollectivePricer>(s, plan);
  StepBatch decode;
  for (int i = 0; i < r.concurrency; ++i) decode.decodes.push_back({r.isl + r.osl / 2});
  StepBatch prefill;
  prefill.prefills.push_back({r.isl, 0, true});
  StepCostOptions po = o;
  po.cuda_graph = false;  // prefill runs eagerly
  return step_cost(decode, m, s, o).total_s +
         r.concurrency * step_cost(prefill, m, s, po).total_s / r.osl;
}

TEST(StepCostValidation, DecodeTpotOfMeasuredPoints) {
  const serving::test::FixtureCatalog& cat = serving::test::fixture_catalog();
  const std::vector<Row> rows = addressable_rows();
  ASSERT_EQ(rows.size(), 8u);  // 4 DeepSeek-R1 (conc 8..64) + 4 gpt-oss (conc 64..256)
  double prev_r1 = 0, prev_oss = 0;
  int prev_c_r1 = 0, prev_c_oss = 0;
  for (const Row& r : rows) {
    const double pred_s = predict_tpot_s(r, cat);
    std::printf("%-18s %-7s conc %4d measured %6.1f ms predicted %6.1f ms error %+6.1f%%\n", r.model.c_str(),
                r.hardware.c_str(), r.concurrency, r.tpot_ms, pred_s * 1e3, 100 * (pred_s * 1e3 / r.tpot_ms - 1.0));
    const bool r1 = r.model == "DeepSeek-R1-0528";
    if (r1) {
      const double floor_s = r1_hbm_floor_s(r.concurrency, r.isl + r.osl / 2.0);
      EXPECT_GE(pred_s, floor_s) << "below the hand-computed HBM floor at concurrency " << r.concurrency;
    }
    double& prev = r1 ? prev_r1 : prev_oss;
    int& prev_c = r1 ? prev_c_r1 : prev_c_oss;
    if (prev_c > 0 && r.concurrency > prev_c) {
      EXPECT_GT(pred_s, prev) << r.model << " at " << r.concurrency;
    }
    prev = pred_s;
    prev_c = r.concurrency;
  }
}

}  // namespace
}  // namespace agentsim::serving
