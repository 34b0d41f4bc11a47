// exp::ProfileEfficiency, the calibrated efficiency lookup (a calibration profile's fitted
// tables seen through serving::KernelEfficiency), in the step cost: the breakdown uses the
// profile's efficiencies, pricing with and without a breakdown still agrees, and a table
// derived from a sibling accelerator says so in the step cost's note. Moved here from the
// serving and calibration tests, as they test experiments code.
#include "experiments/run/profile_efficiency.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "calibration/calibration_file.hpp"
#include "calibration/efficiency_profile.hpp"
#include "calibration/fitted_table.hpp"
#include "calibration/fitter.hpp"
#include "calibration/kernel_family.hpp"
#include "calibration/published_import.hpp"
#include "experiments/config/catalog.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/step_cost.hpp"
#include "tests/sim/serving/catalog_fixtures.hpp"
#include "tests/experiments/run/profile_fixture.hpp"
#include "tests/sim/serving/step_coster_cases.hpp"

namespace agentsim::serving {
namespace {

const serving::test::FixtureCatalog& cat() { return serving::test::fixture_catalog(); }

using test::step_coster_cases::batches;
using test::step_coster_cases::check;
using test::step_coster_cases::make_options;
using test::step_coster_cases::Variant;
using test::step_coster_cases::variants;

struct Plans : ::testing::Test {
  static StepCostOptions options(const hw::System& s, const std::string& plan) {
    return test::step_coster_cases::plan_options(s, plan);
  }
};

// A profile whose GEMM tables reach 35% of the datasheet BF16 peak, measured for
// m in 1..256, and whose HBM reads reach 50%: the breakdown must use exactly
// those and flag the m = 2048 lookup as extrapolated.
TEST_F(Plans, CalibrationProfileChangesTheBreakdown) {
  const auto& m = cat().models.get("llama-3.1-8b");
  const auto& s = cat().systems.get("hgx-h200");
  const calib::EfficiencyProfile p = test::gemm35_mem50_profile();
  StepCostOptions o = options(s, "tp=1");
  o.efficiency = {1, 1, 1};
  const StepBatch b = parse_step_batch("prefill=1x2048@0");
  const StepCost base = step_cost(b, m, s, o);
  o.kernels = std::make_shared<exp::ProfileEfficiency>(p, s.accelerator, o.efficiency);
  const StepCost prof = step_cost(b, m, s, o);
  bool saw_gemm = false;
  for (std::size_t i = 0; i < prof.breakdown.ops.size(); ++i) {
    const OpCost& a = base.breakdown.ops[i];
    const OpCost& q = prof.breakdown.ops[i];
    if (q.op == "attn_proj" || q.op == "dense_ffn") {
      saw_gemm = true;
      EXPECT_NEAR(q.e_compute, 0.35, 1e-12);
      EXPECT_NEAR(q.compute_s, a.compute_s / 0.35, 1e-12);
      EXPECT_NE(q.note.find("gemm_bf16 extrapolated"), std::string::npos) << q.note;
    }
    if (q.memory_s > 0) {
      EXPECT_NEAR(q.memory_s, 2 * a.memory_s, 1e-12 + 1e-9 * a.memory_s);
    }
  }
  EXPECT_TRUE(saw_gemm);
  EXPECT_GT(prof.total_s, 2.0 * base.total_s);  // prefill is compute-bound: 1/0.35 = 2.86x on the GEMMs
}

// A calibration profile (the shapes of every kernel reach KernelEfficiency):
// GEMMs at 35% of peak measured for m in 1..256, HBM at 50%, as in step_cost_plan_test.
TEST(StepCoster, BreakdownChangesNoTotalWithACalibratedProfile) {
  const hw::System& s = cat().systems.get("hgx-h200");
  const calib::EfficiencyProfile p = test::gemm35_mem50_profile();
  const std::vector<StepBatch> bs = batches();
  int priced = 0;
  for (const Variant& v : variants()) {
    StepCostOptions o = make_options(s, v);
    o.kernels = std::make_shared<exp::ProfileEfficiency>(p, s.accelerator, o.efficiency);
    for (const std::string& name : cat().models.names()) {
      const wl::ModelSpec& m = cat().models.get(name);
      for (std::size_t i = 0; i < bs.size(); ++i) {
        priced += check(bs[i], m, s, o, "profile / " + v.name + " / " + name + " / batch " + std::to_string(i));
      }
    }
  }
  EXPECT_EQ(priced, static_cast<int>(variants().size()) * static_cast<int>(cat().models.size()) * 6);
}

}  // namespace
}  // namespace agentsim::serving

namespace agentsim::calib {
namespace {

// The shipped catalog's accelerators and systems, imported from the published kernel data.
const exp::Catalog& catalog() {
  static const exp::Catalog c = exp::load_catalog(AGENTSIM_SOURCE_DIR);
  return c;
}

const PublishedImport& imported() {
  static const PublishedImport r = [] {
    std::vector<hw::Accelerator> accs;
    std::vector<hw::System> systems;
    for (const auto& n : catalog().accelerators.names()) accs.push_back(catalog().accelerators.get(n));
    for (const auto& n : catalog().systems.names()) systems.push_back(catalog().systems.get(n));
    return import_published(std::string(AGENTSIM_SOURCE_DIR) + "/calibration/data/published/kernels", accs, systems,
                            "profiles", std::string(AGENTSIM_SOURCE_DIR) + "/calibration/data/measured");
  }();
  return r;
}

double peak(const std::string& acc, hw::DType d) { return catalog().accelerators.get(acc).peak_flops.at(d); }

// The H200 device runs' launch tables are the step cost's launch floors on NVIDIA parts (H200's
// own, its siblings' derived): the steady state of 1,024 back-to-back kernels, the faster of the
// two runs as the files hold them; AMD parts keep their catalog floor (no table: time 0).
TEST(PublishedImport, DeviceRunLaunchTablesAreTheStepCostsFloors) {
  std::vector<CalibrationFile> runs;
  for (const char* f : {"h200-cuda-2026-12-04.h5", "h200-cuda-2026-12-04-run2.h5"})
    runs.push_back(read_calibration_file(std::string(AGENTSIM_SOURCE_DIR) + "/calibration/data/measured/" + f));
  auto steady = [&](const char* family) {
    double best = 1e9;
    for (const CalibrationFile& run : runs) {
      const MeasurementTable& t = run.tables.at(family);
      const auto& kernels = t.column("kernels");
      const auto last = static_cast<std::size_t>(std::max_element(kernels.begin(), kernels.end()) - kernels.begin());
      best = std::min(best, t.column("seconds_per_kernel")[last]);
    }
    return best;
  };
  const double eager = steady("launch_latency"), graph = steady("graph_replay_latency");
  ASSERT_GT(eager, graph);
  for (const char* acc : {"h200", "h100-sxm", "b200", "gb300"}) {
    const exp::ProfileEfficiency eff(imported().profiles.at(acc), catalog().accelerators.get(acc), {});
    const FittedTable& t = imported().profiles.at(acc).table("launch_latency");
    // Within the fit's own stated error at its knots.
    EXPECT_NEAR(eff.launch_floor(false).time_s, eager, eager * (t.fit_error.max_rel_error + 1e-9)) << acc;
    const FittedTable& g = imported().profiles.at(acc).table("graph_replay_latency");
    EXPECT_NEAR(eff.launch_floor(true).time_s, graph, graph * (g.fit_error.max_rel_error + 1e-9)) << acc;
    EXPECT_EQ(t.derived_from, std::string(acc) == "h200" ? "" : "h200") << acc;
    EXPECT_EQ(eff.launch_floor(true).note,
              std::string("graph_replay_latency table") + (std::string(acc) == "h200" ? "" : ", derived from h200 table"))
        << acc;
  }
  for (const char* acc : {"mi300x", "mi355x"}) {
    EXPECT_FALSE(imported().profiles.at(acc).tables.contains("launch_latency")) << acc;
    const exp::ProfileEfficiency eff(imported().profiles.at(acc), catalog().accelerators.get(acc), {});
    EXPECT_EQ(eff.launch_floor(false).time_s, 0) << acc;
  }
  // explain's breakdown names the floor's table.
  const auto& s = catalog().systems.get("hgx-h200");
  serving::StepCostOptions o = serving::test::step_coster_cases::plan_options(s, "tp=8");
  o.kernels = std::make_shared<exp::ProfileEfficiency>(imported().profiles.at("h200"), s.accelerator, o.efficiency);
  o.cuda_graph = false;
  const serving::StepCost c =
      serving::step_cost(serving::parse_step_batch("decode=8@1024"), catalog().models.get("llama-3.1-70b"), s, o);
  bool named = false;
  for (const std::string& n : c.breakdown.notes) named |= n.find("eager launches, launch floor 2.8 us per kernel (launch_latency table)") != std::string::npos;
  EXPECT_TRUE(named);
}

// Each catalog accelerator's `efficiency_profile` comment (its citation) names the tables the import
// measured for it and, per sibling, those it derived, exactly: a table that moves from derived to
// measured (or to another sibling) must move in the catalog's comment too.
TEST(PublishedImport, CatalogCitesEachProfilesMeasuredAndDerivedTables) {
  // "a, b (a note), c" -> {a, b, c}: parentheses are notes, not names.
  const auto names = [](const std::string& list) {
    std::string plain;
    int depth = 0;
    for (char ch : list) {
      depth += ch == '(' ? 1 : 0;
      if (depth == 0) plain += ch;
      depth -= ch == ')' && depth > 0 ? 1 : 0;
    }
    std::set<std::string> out;
    std::stringstream in(plain);
    for (std::string item; std::getline(in, item, ',');) {
      const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
      if (b != std::string::npos && item.substr(b, e - b + 1) != "none") out.insert(item.substr(b, e - b + 1));
    }
    return out;
  };
  for (const auto& acc : catalog().accelerators.names()) {
    std::ifstream f(std::string(AGENTSIM_SOURCE_DIR) + "/hwmodels/catalog/accelerators/" + acc + ".yaml");
    std::string line, cite;
    while (std::getline(f, line)) {
      if (line.rfind("efficiency_profile:", 0) == 0) cite = line;
    }
    const auto m = cite.find("measured tables: "), d = cite.find("; derived tables: ");
    ASSERT_TRUE(m != std::string::npos && d != std::string::npos && m < d) << acc << ": " << cite;
    std::set<std::string> measured;
    std::map<std::string, std::set<std::string>> derived;  // sibling -> tables
    for (const auto& [name, t] : imported().profiles.at(acc).tables) {
      // Per-implementation tables ("family@implementation") are cited in
      // experiments/catalog/kernel_implementations.yaml, not in the accelerator's line.
      if (name.find('@') != std::string::npos) continue;
      if (t.derived_from.empty()) measured.insert(name);
      else derived[t.derived_from].insert(name);
    }
    EXPECT_EQ(names(cite.substr(m + 17, d - m - 17)), measured) << acc;
    std::map<std::string, std::set<std::string>> cited;
    std::stringstream groups(cite.substr(d + 18));
    for (std::string group; std::getline(groups, group, ';');) {
      const auto from = group.rfind(" from ");
      ASSERT_NE(from, std::string::npos) << acc << ": " << group;
      const auto sib = names(group.substr(from + 6));
      ASSERT_EQ(sib.size(), 1u) << acc << ": " << group;
      cited[*sib.begin()] = names(group.substr(0, from));
    }
    EXPECT_EQ(cited, derived) << acc;
  }
}

TEST(PublishedImport, DerivedTablesNameTheirSibling) {
  const auto& p = imported().profiles;
  // No published GEMM rows for B300, GB300 or MI325X.
  EXPECT_EQ(p.at("b300").table("gemm_bf16").derived_from, "b200");
  EXPECT_EQ(p.at("gb300").table("gemm_fp8").derived_from, "gb200");
  EXPECT_EQ(p.at("mi325x").table("gemm_fp8").derived_from, "mi300x");
  EXPECT_EQ(p.at("mi325x").table("gemm_bf16").derived_from, "h200");
  // H100 runs H200's measured cuBLAS BF16 table: same die, same kernel (kernel_tables_from in h100-sxm.yaml).
  EXPECT_EQ(p.at("h100-sxm").table("gemm_bf16").derived_from, "h200");
  // A derived table keeps the sibling's efficiencies against its own datasheet peak.
  const FittedTable& sib = p.at("b200").table("gemm_bf16");
  const FittedTable& der = p.at("b300").table("gemm_bf16");
  EXPECT_EQ(der.peak, peak("b300", hw::DType::kBf16));
  EXPECT_DOUBLE_EQ(der.lookup({64, 4096, 4096}).value * der.peak / peak("b300", hw::DType::kBf16),
                   sib.lookup({64, 4096, 4096}).value * sib.peak / peak("b200", hw::DType::kBf16));
  EXPECT_NE(der.provenance.find("derived from b200 table"), std::string::npos) << der.provenance;
  // The round trip through YAML keeps it, and the step cost's note says so.
  const EfficiencyProfile back = parse_profile(to_yaml(p.at("b300")), "b300.yaml");
  EXPECT_EQ(back.table("gemm_bf16").derived_from, "b200");
  const exp::ProfileEfficiency eff(back, catalog().accelerators.get("b300"), {});
  serving::KernelShape ks;
  ks.kind = serving::KernelKind::kGemm;
  ks.dtype = hw::DType::kBf16;
  ks.m = 64;
  ks.n = 4096;
  ks.k = 4096;
  EXPECT_NE(eff.compute(ks).note.find("gemm_bf16"), std::string::npos) << eff.compute(ks).note;
  EXPECT_NE(eff.compute(ks).note.find("derived from b200 table"), std::string::npos) << eff.compute(ks).note;
}

// Expert GEMMs stream their weights at the shipped grouped table's roofline fraction (H200's own
// device run of SGLang's Triton fused-MoE kernel), not at the HBM copy rate; dense GEMMs keep the
// copy rate on the memory side. The YAML round trip keeps mem_bw_Bps.
TEST(PublishedImport, ExpertGemmsStreamAtTheirMeasuredRooflineFraction) {
  const auto& p = imported().profiles;
  const FittedTable& g = p.at("h200").table("grouped_gemm_fp8");
  EXPECT_TRUE(g.derived_from.empty());
  EXPECT_NE(g.provenance.find("h200-triton-moe-fp8_block-2026-12-04.h5 (24 rows"), std::string::npos) << g.provenance;
  EXPECT_EQ(g.mem_bw_Bps, catalog().accelerators.get("h200").hbm_bw_Bps);
  EXPECT_EQ(p.at("h100-sxm").table("grouped_gemm_fp8").mem_bw_Bps,
            catalog().accelerators.get("h100-sxm").hbm_bw_Bps);
  EXPECT_EQ(p.at("h200").table("gemm_fp8").mem_bw_Bps, 0);
  const EfficiencyProfile back = parse_profile(to_yaml(p.at("h200")), "h200.yaml");
  EXPECT_EQ(back.table("grouped_gemm_fp8").mem_bw_Bps, g.mem_bw_Bps);
  const exp::ProfileEfficiency eff(back, catalog().accelerators.get("h200"), {0.7, 0.8, 0.8});
  // The step cost's R1 decode call at TP 8 is keyed at a measured call's own shape (64 tokens:
  // 232 experts, 576 pairs), and gets that call's roofline fraction (the faster of the two runs,
  // as the import takes it) within the fit's own stated error.
  double measured = 0;
  serving::KernelShape ks;
  for (const char* f : {"h200-triton-moe-fp8_block-2026-12-04.h5", "h200-triton-moe-fp8_block-2026-12-04-run2.h5"}) {
    const CalibrationFile run =
        read_calibration_file(std::string(AGENTSIM_SOURCE_DIR) + "/calibration/data/measured/" + f);
    const MeasurementTable& t = run.tables.at("grouped_gemm");
    const std::vector<double> values = measured_values(t, g);
    for (std::size_t r = 0; r < t.rows(); ++r) {
      if (t.column("groups")[r] * t.column("m")[r] != 64.0 * 9) continue;
      measured = std::max(measured, values[r]);
      ks.groups = t.column("groups")[r];
      ks.m = t.column("m")[r];
      ks.weight_bytes = fitted_axis_value(t, "weight_bytes", r);
    }
  }
  ASSERT_GT(measured, 0) << "the runs hold a 64-token call";
  ks.kind = serving::KernelKind::kGroupedGemm;
  ks.dtype = hw::DType::kFp8;
  ks.n = 768;  // gate/up and down, 2 x 256 + 256 wide
  ks.k = 7168;
  ks.bytes = 1e9;
  const double roof = g.lookup({ks.weight_bytes, ks.m, ks.n, ks.k}).value;
  EXPECT_NEAR(eff.memory(ks).value, roof, 1e-12);
  EXPECT_NEAR(eff.compute(ks).value, roof, 1e-12);
  EXPECT_LE(std::abs(roof / measured - 1), g.fit_error.max_rel_error + 1e-9) << roof << " vs " << measured;
  ks.kind = serving::KernelKind::kGemm;
  EXPECT_NE(eff.memory(ks).note.find("mem_read"), std::string::npos) << eff.memory(ks).note;
}

// constant_between reads the same tables compute() and memory() do: H200's decode-attention
// table is one headline point (flat at every context), its FP8 GEMM table bends along m
// (flat only past its last knot), and a change of kind is never constant.
TEST(PublishedImport, ConstantBetweenFollowsTheTablesTheLookupsRead) {
  const exp::ProfileEfficiency eff(imported().profiles.at("h200"), catalog().accelerators.get("h200"),
                                   {0.7, 0.8, 0.8});
  serving::KernelShape a;
  a.kind = serving::KernelKind::kAttentionDecode;
  a.batch = 64;
  a.context = 1000;
  serving::KernelShape b = a;
  b.context = 100000;
  EXPECT_TRUE(eff.constant_between(a, b));
  EXPECT_EQ(eff.memory(a).value, eff.memory(b).value);
  serving::KernelShape g;
  g.kind = serving::KernelKind::kGemm;
  g.dtype = hw::DType::kFp8;
  g.m = 16;
  g.n = 2112;
  g.k = 7168;
  serving::KernelShape h = g;
  h.m = 64;
  EXPECT_FALSE(eff.constant_between(g, h));
  EXPECT_NE(eff.compute(g).value, eff.compute(h).value);
  g.m = 1e6;
  h.m = 2e6;
  EXPECT_TRUE(eff.constant_between(g, h));
  EXPECT_EQ(eff.compute(g).value, eff.compute(h).value);
  EXPECT_FALSE(eff.constant_between(a, g));
}

// The shipped profiles' all-reduce tables price the TP all-reduce where they were measured:
// the engines' own kernel (custom_all_reduce_1node) up to its largest measured size (4 MiB; below
// its first, 2 KiB, that size's time), NCCL's table above it; MI325X's custom table is MI355X's (vLLM PR #39080's ROCm
// kernel, 24 KB to 1.5 MB) derived onto its xGMI links, and its RCCL rows start at 4 GiB, so between 1.5 MB and 4 GiB
// its NCCL table holds MI300X's RCCL rows (same xGMI fabric).
TEST(PublishedImport, MeasuredAllReduceOnlyWithinTheMeasuredSizes) {
  const auto& p = imported().profiles;
  const exp::ProfileEfficiency h200(p.at("h200"), catalog().accelerators.get("h200"), {});
  const serving::MeasuredCollective ar = h200.all_reduce(1 << 20, 8);
  ASSERT_GT(ar.time_s, 0);
  // calibration/data/published/kernels/custom_all_reduce.csv, sgl-kernel custom_reduce, tp 8,
  // data size 262144 float32 (1 MiB): 16.7 us on H100; H200 has the same NVLink 4 bandwidth.
  EXPECT_NEAR(ar.time_s, 16.7e-6, 0.1 * 16.7e-6);
  EXPECT_EQ(ar.source, "custom_all_reduce_1node table, derived from h100-sxm table");
  // 16 MiB is above the custom kernel's measured sizes: the NCCL row (collectives.csv, Azure ND
  // H200 v5 nccl-tests, NVLS, 16 MiB) prices it; the fitted table reproduces it within its fit error.
  const serving::MeasuredCollective big = h200.all_reduce(16.0 * (1 << 20), 8);
  EXPECT_EQ(big.source, "nccl_all_reduce_1node table");
  const auto nccl = h200.collective("all_reduce", 1, 16.0 * (1 << 20), 8);
  EXPECT_DOUBLE_EQ(big.time_s, nccl.time_s);
  // Where both tables price a size, the faster one: the custom kernel at 64 KiB (about 7 us)
  // against NCCL's NVLS row (about 29 us).
  const serving::MeasuredCollective mid = h200.all_reduce(65536, 8);
  EXPECT_LT(mid.time_s, h200.collective("all_reduce", 1, 65536, 8).time_s / 2);
  // Below the custom table's first size (2 KB, its latency floor) a message takes that size's
  // time, not NCCL's 1 KB row (about 30 us): pricing never rises as the message shrinks.
  const serving::MeasuredCollective tiny = h200.all_reduce(512, 8);
  EXPECT_EQ(tiny.source, "custom_all_reduce_1node table, derived from h100-sxm table");
  EXPECT_DOUBLE_EQ(tiny.time_s, h200.all_reduce(2048, 8).time_s);
  EXPECT_LT(tiny.time_s, h200.collective("all_reduce", 1, 1024, 8).time_s);
  // MI325X: the engines' ROCm custom all-reduce (MI355X's rows, derived) up to 1.5 MB; above it its own RCCL rows
  // start at 4 GiB, and below them its table holds MI300X's rows (same fabric).
  const exp::ProfileEfficiency mi325x(p.at("mi325x"), catalog().accelerators.get("mi325x"), {});
  const serving::MeasuredCollective small = mi325x.all_reduce(1 << 20, 8);
  EXPECT_GT(small.time_s, 0);
  EXPECT_EQ(small.source, "custom_all_reduce_1node table, derived from mi355x table");
  EXPECT_LT(small.time_s, mi325x.collective("all_reduce", 1, 1 << 20, 8).time_s);
  const serving::MeasuredCollective above = mi325x.all_reduce(4.0 * (1 << 20), 8);
  EXPECT_GT(above.time_s, 0);
  EXPECT_EQ(above.source, "nccl_all_reduce_1node table, rows of mi300x below size_bytes 4.29497e+09");
  EXPECT_GT(mi325x.all_reduce(8.0 * (1 << 30), 8).time_s, 0);
}

// aiter's measured MLA decode calls at a tiny KV cache (attention.csv, phase `decode floor`:
// ROCm/aiter PR #2039's assembly-kernel column) make AMD's mla_decode_floor table, by query
// heads (batch x heads), and never its bytes-fitted attention_decode table; MI325X (same die)
// takes MI300X's, and no NVIDIA accelerator takes an AMD kernel's floor.
TEST(PublishedImport, AmdMlaDecodeCallsKeepTheirKernelsMeasuredFloor) {
  const auto& p = imported().profiles;
  std::map<std::string, std::map<double, double>> fastest;  // gpu family -> query heads -> seconds
  std::map<std::string, std::pair<double, double>> repeat;  // gpu family -> (min, max) seconds of its 128-head calls
  std::ifstream in(std::string(AGENTSIM_SOURCE_DIR) + "/calibration/data/published/kernels/attention.csv");
  core::CsvReader r(in, "attention.csv");
  while (r.next()) {
    if (r.field(r.column("phase")) != "decode floor") continue;
    const double heads = r.number(r.column("batch")) * r.number(r.column("num_heads_q"));
    const double s = r.number(r.column("latency_us")) * 1e-6;
    auto [it, fresh] = fastest[r.field(r.column("gpu_family"))].emplace(heads, s);
    if (!fresh) it->second = std::min(it->second, s);
    if (heads == 128) {
      auto [rt, first] = repeat.emplace(r.field(r.column("gpu_family")), std::pair{s, s});
      if (!first) rt->second = {std::min(rt->second.first, s), std::max(rt->second.second, s)};
    }
  }
  ASSERT_EQ(fastest.size(), 2u);
  for (const auto& [family, acc] : {std::pair<std::string, std::string>{"MI300X", "mi300x"}, {"MI355X", "mi355x"}}) {
    const FittedTable& t = p.at(acc).table("mla_decode_floor");
    EXPECT_EQ(t.quantity, Quantity::kLatency);
    EXPECT_TRUE(t.derived_from.empty()) << acc;
    ASSERT_EQ(t.axes.size(), 1u);
    EXPECT_EQ(t.axes[0].name, "query_heads");
    ASSERT_EQ(fastest.at(family).size(), 8u) << family;  // batch 1 at 21 and 64 tokens share 128 heads
    for (const auto& [heads, s] : fastest.at(family)) {
      EXPECT_LE(std::abs(t.lookup({heads}).value / s - 1), t.fit_error.max_rel_error + 1e-12) << acc << " " << heads;
    }
    // The measurement's own spread: one sequence at 21 and at 64 tokens (the same 128 query heads,
    // a KV difference of 25 kB) timed 5.3% (MI300X) and 4.4% (MI355X) apart. The fit, smoothed
    // along query heads, stays inside that spread.
    const auto [lo, hi] = repeat.at(family);
    ASSERT_GT(hi, lo) << family;
    EXPECT_LT(t.fit_error.max_rel_error, hi / lo - 1) << acc;
  }
  // The rows never entered the decode tables: CDNA3's is still FlashMLA's headline, MI355X's B200's.
  EXPECT_EQ(p.at("mi300x").table("attention_decode").derived_from, "h100-sxm");
  EXPECT_EQ(p.at("mi355x").table("attention_decode").derived_from, "b200");
  EXPECT_EQ(p.at("mi325x").table("mla_decode_floor").derived_from, "mi300x");
  for (const char* nv : {"h100-sxm", "h200", "a100-sxm-80gb", "b200", "b300", "gb200", "gb300"})
    EXPECT_FALSE(p.at(nv).tables.contains("mla_decode_floor")) << nv;

  // The lookup: a dense-MLA decode call by its query heads, the edge value below the smallest
  // measured call (128 heads, MI300X's 14.7 us), nothing for other calls.
  const exp::ProfileEfficiency eff(p.at("mi300x"), catalog().accelerators.get("mi300x"), {0.7, 0.8, 0.8});
  serving::KernelShape ks;
  ks.kind = serving::KernelKind::kAttentionDecode;
  ks.batch = 4;
  ks.query_heads = 64;  // 4 sequences x 16 heads (DeepSeek-R1 at TP 8)
  const serving::CallFloor small = eff.call_floor(ks);
  EXPECT_TRUE(small.extrapolated);
  EXPECT_DOUBLE_EQ(small.time_s, p.at("mi300x").table("mla_decode_floor").lookup({128}).value);  // the first knot's
  EXPECT_NE(small.note.find("mla_decode_floor"), std::string::npos) << small.note;
  ks.query_heads = 1024;  // 64 sequences: between the measured 640 and 2,048 heads
  EXPECT_GT(eff.call_floor(ks).time_s, fastest.at("MI300X").at(640));
  EXPECT_LT(eff.call_floor(ks).time_s, fastest.at("MI300X").at(2048));
  EXPECT_FALSE(eff.call_floor(ks).extrapolated);
  ks.query_heads = 0;  // not a dense-MLA decode-kernel call (a prompt's prefill, another attention)
  EXPECT_EQ(eff.call_floor(ks).time_s, 0);
}

// In the step cost: DeepSeek-R1's decode attention on MI300X at 4 sequences (TP 8) costs one
// call floor a layer, booked as a floor and named in the note, and verifying drafts the floor at
// k + 1 queries a sequence; the same batch on H200 (no floor measured), gpt-oss-120b's GQA
// attention on MI300X and a prompt's prefill chunk keep the bytes-and-launch-floor price.
TEST(PublishedImport, MlaDecodeAttentionOnAmdPaysTheCallFloor) {
  const auto& p = imported().profiles;
  auto attn_rows = [&](const std::string& model, const std::string& system, const std::string& acc,
                       const std::string& batch = "decode=4@1536", int drafts = 0) {
    const hw::System& s = catalog().systems.get(system);
    serving::StepCostOptions o = serving::test::step_coster_cases::plan_options(s, "tp=8");
    o.kernels = std::make_shared<exp::ProfileEfficiency>(p.at(acc), s.accelerator, o.efficiency);
    o.spec.draft_tokens = drafts;
    o.spec.acceptance.assign(static_cast<std::size_t>(drafts), 0.5);
    const serving::StepCost c =
        serving::step_cost(serving::parse_step_batch(batch), catalog().models.get(model), s, o);
    std::vector<serving::OpCost> rows;
    for (const serving::OpCost& op : c.breakdown.ops)
      if (op.op == "attn_core") rows.push_back(op);
    return rows;
  };
  const double floor_s = exp::ProfileEfficiency(p.at("mi300x"), catalog().accelerators.get("mi300x"), {})
                             .call_floor([] {
                               serving::KernelShape k;
                               k.kind = serving::KernelKind::kAttentionDecode;
                               k.query_heads = 64;
                               return k;
                             }())
                             .time_s;
  ASSERT_GT(floor_s, 10e-6);
  const auto amd = attn_rows("deepseek-r1", "mi300x-8", "mi300x");
  ASSERT_FALSE(amd.empty());
  for (const serving::OpCost& op : amd) {
    EXPECT_DOUBLE_EQ(op.floor_s, op.layers * floor_s) << op.layer_kind;
    EXPECT_DOUBLE_EQ(op.time_s, op.floor_s) << op.layer_kind;
    EXPECT_EQ(op.bound, serving::Cause::kFloor) << op.layer_kind;
    EXPECT_NE(op.note.find("mla_decode_floor"), std::string::npos) << op.note;
  }
  // Verifying 3 drafts runs the same kernel with 4 queries a sequence: 4 x 4 x 16 = 256 query heads.
  const auto verify = attn_rows("deepseek-r1", "mi300x-8", "mi300x", "decode=4@1536", 3);
  ASSERT_FALSE(verify.empty());
  const double floor256_s = p.at("mi300x").table("mla_decode_floor").lookup({256}).value;
  EXPECT_GT(floor256_s, floor_s);
  for (const serving::OpCost& op : verify) {
    EXPECT_DOUBLE_EQ(op.floor_s, op.layers * floor256_s) << op.layer_kind;
  }
  for (const auto& [model, system, acc, batch] :
       {std::tuple<std::string, std::string, std::string, std::string>{"deepseek-r1", "hgx-h200", "h200", "decode=4@1536"},
        {"gpt-oss-120b", "mi300x-8", "mi300x", "decode=4@1536"},
        {"deepseek-r1", "mi300x-8", "mi300x", "prefill=1x64@0"}}) {  // a prompt's chunk: the prefill kernel
    for (const serving::OpCost& op : attn_rows(model, system, acc, batch)) {
      if (batch.starts_with("decode")) {
        EXPECT_LT(op.floor_s, op.layers * floor_s) << model << " on " << system;  // launch floors only
      }
      EXPECT_EQ(op.note.find("mla_decode_floor"), std::string::npos) << op.note;
    }
  }
}

// A dense-MLA decode call on an attention-data-parallel rank (all 128 of DeepSeek-R1's query heads
// over an FP8 KV cache) is bound by its math, priced at the decode kernel's measured
// compute-bound rate (attention_decode_compute: on B200 TRTLLM-gen's 587.5 TFLOPS, about a
// quarter of the die's BF16 peak), not at the datasheet peak; at TP 8 (16 heads a rank) the same
// sequences stay bound by their KV read.
TEST(PublishedImport, MlaDecodeOnAnAttentionDataParallelRankRunsAtTheKernelsComputeBoundRate) {
  const auto& p = imported().profiles;
  const hw::System& s = catalog().systems.get("hgx-b200");
  const double bf16 = s.accelerator.peak_flops.at(hw::DType::kBf16);
  const double measured = p.at("b200").table("attention_decode_compute").lookup({1}).value *
                          p.at("b200").table("attention_decode_compute").peak / bf16;
  ASSERT_GT(measured, 0.2);
  ASSERT_LT(measured, 0.3);
  auto attn = [&](const std::string& plan) {
    serving::StepCostOptions o = serving::test::step_coster_cases::plan_options(s, plan);
    o.kernels = std::make_shared<exp::ProfileEfficiency>(p.at("b200"), s.accelerator, o.efficiency);
    wl::ModelSpec m = catalog().models.get("deepseek-r1");
    m.precision.kv_cache = hw::DType::kFp8;
    const serving::StepCost c = serving::step_cost(serving::parse_step_batch("decode=2048@4096"), m, s, o);
    std::vector<serving::OpCost> rows;
    for (const serving::OpCost& op : c.breakdown.ops)
      if (op.op == "attn_core") rows.push_back(op);
    return rows;
  };
  const auto adp = attn("tp=1,ep=8,dp=8");
  ASSERT_FALSE(adp.empty());
  for (const serving::OpCost& op : adp) {
    EXPECT_DOUBLE_EQ(op.e_compute, measured) << op.layer_kind;
    EXPECT_NEAR(op.compute_s, op.flops / (measured * bf16), 1e-12 * op.compute_s) << op.layer_kind;
    EXPECT_EQ(op.bound, serving::Cause::kCompute) << op.layer_kind;
    EXPECT_NE(op.note.find("attention_decode_compute"), std::string::npos) << op.note;
  }
  for (const serving::OpCost& op : attn("tp=8,ep=8")) {
    EXPECT_EQ(op.bound, serving::Cause::kHbm) << op.layer_kind;
    EXPECT_LT(op.compute_s, op.memory_s) << op.layer_kind;
  }
}

}  // namespace
}  // namespace agentsim::calib
