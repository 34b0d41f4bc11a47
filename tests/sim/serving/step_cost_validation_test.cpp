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

// What these bounds are: regression bounds, the model's current MAPE rounded up (DeepSeek-R1
// 19.6%, gpt-oss 48.4%; docs/step-cost.md lists every row). They are NOT an independent
// accuracy claim: they catch a change that makes the fit worse, nothing more. The independent
// target of issue #15 (the R1 8xH200 TP8 decode step within 10% of the measured 34.6 ms TPOT
// at concurrency 64) is not met: the model predicts 28.6 ms (-17.3%), and every point here is
// under-predicted (docs/step-cost.md, "Validation", discusses the gap: constant datasheet
// efficiencies, which calibration profiles are meant to replace). Tighten these bounds when the
// model improves; do not loosen them to pass.
constexpr double kR1MapeBound = 0.20;  // measured 19.6%
constexpr double kOssMapeBound = 0.50;  // measured 48.4%

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
  double sum_r1 = 0, sum_oss = 0;
  for (const Row& r : rows) {
    const double pred_ms = predict_tpot_s(r, cat) * 1e3;
    const double err = pred_ms / r.tpot_ms - 1.0;
    std::printf("%-18s %-7s conc %4d measured %6.1f ms predicted %6.1f ms error %+6.1f%%\n", r.model.c_str(),
                r.hardware.c_str(), r.concurrency, r.tpot_ms, pred_ms, 100 * err);
    (r.model == "gpt-oss-120b" ? sum_oss : sum_r1) += std::fabs(err);
  }
  // Regression bounds (see kR1MapeBound): the measured MAPE rounded up.
  EXPECT_LT(sum_r1 / 4, kR1MapeBound);
  EXPECT_LT(sum_oss / 4, kOssMapeBound);
}

}  // namespace
}  // namespace agentsim::serving
