// One resolved run (experiments/run/resolve_run.hpp): a pp=2 and a dp=2 plan run end to end on
// 8 GPUs per replica, with GPU counts and power from the plan's devices (tp x dp x pp), the
// accelerator's efficiency profile reaches `run`, and policy names decode from one table each.
#include <gtest/gtest.h>
#include "tests/support/file_text.hpp"
#include "tests/support/source_root.hpp"

#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "experiments/config/experiment.hpp"
#include "experiments/run/profile_efficiency.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/run_accounting.hpp"
#include "experiments/run/runner.hpp"
#include "tests/support/citation_rule.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/engine_overhead_decoder.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;
using agentsim::test_support::slurp;
using agentsim::test_support::kTrace;

// llama-3.1-70b on HGX H200 (8 GPUs a system), `replicas` replicas of `plan`, 4 agents, 20 s.
std::string body(const std::string& plan, int replicas, const std::string& serving_extra = "") {
  return "name: resolved\n"
         "model: llama-3.1-70b\n"
         "system: hgx-h200\n"
         "deployment: " + plan + "\n"
         "serving: {replicas: " + std::to_string(replicas) + ", fast_forward: false" + serving_extra + "}\n"
         "workload:\n"
         "  trace: " + kTrace + "\n"
         "  concurrency: [4]\n"
         "  warmup: \"0s\"\n"
         "  window: \"20s\"\n";
}

Experiment parse_resolved(const std::string& text) { return parse_experiment(text, kRoot + "/resolved.yaml", kRoot); }

// The power model written out from its definition (hwmodels/power_model.hpp), not called:
// an accelerator draws idle + (TDP - idle) x activity; activity-weighted seconds of a step are
// roofline x (f + (1 - f) x min(1, compute / roofline)) + comm x f, with f the decode fraction.
double activity_seconds(const hw::Accelerator& a, const metrics::StepRecord& s) {
  const double f = a.decode_power_fraction;
  const double roof = std::max(s.compute_s, s.memory_s);
  const double roof_activity = roof > 0 ? f + (1 - f) * std::min(1.0, s.compute_s / roof) : 0.0;
  return roof * roof_activity + s.comm_s * f;
}

struct PlanCase {
  const char* plan;
  int tp, pp, dp;
};

class ResolvedRun : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ResolvedRun, GpuCountsAndPowerFollowThePlansDevices) {
  const PlanCase c = GetParam();
  constexpr int kReplicas = 2;
  constexpr int kDevicesPerReplica = 8;  // tp=4 x pp=2, or tp=4 x dp=2
  const Experiment e = parse_resolved(body(c.plan, kReplicas));
  const wl::Trace sessions = load_sessions(e);

  const RunSpec spec = resolve_run(e, first_valid_plan(e), sessions.block_size_tokens);
  EXPECT_EQ(spec.plan().tp, c.tp);
  EXPECT_EQ(spec.plan().pp, c.pp);
  EXPECT_EQ(spec.plan().attn_dp, c.dp);
  EXPECT_EQ(spec.devices_per_replica(), kDevicesPerReplica);
  EXPECT_EQ(spec.cluster.devices_per_replica, kDevicesPerReplica);
  EXPECT_EQ(spec.accelerators(), kReplicas * kDevicesPerReplica);

  const RunResult r = run_point(e, sessions, 4);
  ASSERT_TRUE(r.skipped.empty()) << r.skipped;
  ASSERT_GT(r.summary.requests, 0);
  ASSERT_FALSE(r.steps.empty());
  // Two replicas of 8 GPUs fill two 8-GPU systems.
  EXPECT_EQ(r.power.accelerators, 16);
  EXPECT_EQ(r.power.systems, 2);
  EXPECT_EQ(r.power.accelerators_total, 16);

  // Expected power from the catalog's figures: every GPU idles, and each of a replica's 8 GPUs
  // adds (TDP - idle) x its activity-weighted seconds over the window.
  const hw::System& sys = e.systems[0];
  const hw::Accelerator& a = sys.accelerator;
  const double window_s = 20.0;
  double active_j = 0;
  for (const metrics::StepRecord& s : r.steps) {
    active_j += kDevicesPerReplica * (a.tdp_w - a.idle_w) * activity_seconds(a, s) * s.steps;
  }
  const double accelerators_w = 2 * 8 * a.idle_w + active_j / window_s;
  EXPECT_NEAR(r.power.accelerators_w, accelerators_w, 1e-6 * accelerators_w);
  // Wall power of the two systems: accelerators + CPUs at half load + memory + NICs + switches +
  // fans, over the PSU efficiency (PUE 1).
  const double rest_w = sys.host.cpus * sys.host.cpu_tdp_w * 0.5 + sys.power.host_memory_w +
                        sys.scale_out.nics * sys.scale_out.nic_w + sys.power.switch_w + sys.power.fans_misc_w;
  const double power_w = (accelerators_w + 2 * rest_w) / sys.power.psu_efficiency;
  EXPECT_NEAR(r.power.power_w, power_w, 1e-6 * power_w);
  EXPECT_DOUBLE_EQ(r.power.provisioned_w, 2 * sys.power.nameplate_w);
}

std::string case_name(const ::testing::TestParamInfo<PlanCase>& c) { return c.param.pp > 1 ? "pp2" : "dp2"; }

INSTANTIATE_TEST_SUITE_P(PipelineAndDataParallel, ResolvedRun,
                         ::testing::Values(PlanCase{"{tp: 4, pp: 2}", 4, 2, 1}, PlanCase{"{tp: 4, dp: 2}", 4, 1, 2}),
                         case_name);

// A profile pricing HBM traffic at half of peak (schema of docs/calibration.md).
std::string write_profile() {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "agentsim_resolved_run_profile.yaml";
  std::ofstream out(p);
  out << "schema: agentsim-efficiency-profile/1\n"
         "device: test\n"
         "backend: cuda\n"
         "source: fixture\n"
         "calibration_date: 2025-01-01T00:00:00Z\n"
         "tables:\n"
         "  mem_read:\n"
         "    family: mem_read\n"
         "    dtype: none\n"
         "    quantity: memory\n"
         "    peak: 4.8e12\n"
         "    peak_source: fixture\n"
         "    log_constant: " << std::log(0.5) << "\n"
         "    axes:\n"
         "      - {name: size_bytes, monotone: 0, knots: [1, 1.0e12], log_offsets: [0, 0]}\n"
         "    fit_error: {points: 2, rms_rel_error: 0, max_rel_error: 0}\n"
         "    held_out_error: {points: 0, rms_rel_error: 0, max_rel_error: 0}\n";
  return p.string();
}


// The board power of a run's own GPUs: the systems' accelerator power less the GPUs it leaves idle
// (at the catalog's idle power), over the serving ones; all of it where the run fills its systems.
TEST(RunPower, ServingAcceleratorPowerLeavesTheIdleOnesOut) {
  RunPower p;
  p.accelerators = 4;
  p.accelerators_total = 8;
  p.accelerators_w = 4 * 650.0 + 4 * 200.0;
  EXPECT_DOUBLE_EQ(serving_accelerator_w(p, 200), 650);
  EXPECT_DOUBLE_EQ(p.accelerators_w / p.accelerators_total, 425);  // what averaging over the system gave
  p.accelerators = p.accelerators_total = 8;
  p.accelerators_w = 8 * 650.0;
  EXPECT_DOUBLE_EQ(serving_accelerator_w(p, 200), 650);
  p.accelerators = 0;
  EXPECT_EQ(serving_accelerator_w(p, 200), 0);
}
TEST(ResolvedRunProfile, RunPricesStepsWithTheAcceleratorsEfficiencyProfile) {
  Experiment plain = parse_resolved(body("{tp: 4, pp: 2}", 1));
  plain.systems[0].accelerator.efficiency_profile.clear();  // the shipped h200 names its published profile
  Experiment profiled = plain;
  profiled.systems[0].accelerator.efficiency_profile = write_profile();
  const RunSpec without = resolve_run(plain, first_valid_plan(plain));
  const RunSpec with = resolve_run(profiled, first_valid_plan(profiled));
  EXPECT_EQ(without.replica.cost.kernels, nullptr);
  ASSERT_NE(with.replica.cost.kernels, nullptr);
  EXPECT_NE(with.replica.cost.kernels->name().find("fixture"), std::string::npos) << with.replica.cost.kernels->name();

  // The run's step cost is explain's: the same options with the profile loaded as explain loads it.
  serving::StepBatch batch;
  batch.decodes.assign(16, serving::DecodeItem{8192});
  serving::StepCostOptions explain_opt = without.replica.cost;
  explain_opt.kernels = load_profile_efficiency(profiled.systems[0].accelerator, kRoot, plain.serving.efficiency);
  const double run_s = serving::step_cost(batch, profiled.model, with.system, with.replica.cost).total_s;
  EXPECT_EQ(run_s, serving::step_cost(batch, profiled.model, with.system, explain_opt).total_s);
  EXPECT_GT(run_s, serving::step_cost(batch, plain.model, without.system, without.replica.cost).total_s);

  // And a run uses it: HBM at half of peak slows the memory-bound decode steps.
  const wl::Trace sessions = load_sessions(plain);
  const RunResult a = run_point(plain, sessions, 4);
  const RunResult b = run_point(profiled, sessions, 4);
  ASSERT_GT(a.summary.steps, 0);
  ASSERT_GT(b.summary.steps, 0);
  EXPECT_GT(b.power.memory_s / static_cast<double>(b.summary.steps),
            a.power.memory_s / static_cast<double>(a.summary.steps));
}

// Precedence (docs/calibration.md): the shipped h200 profile prices a run unless the
// experiment writes serving.efficiency, whose constants then price every kernel.
TEST(ResolvedRunProfile, ExplicitConstantEfficienciesReplaceTheShippedProfile) {
  const Experiment shipped = parse_resolved(body("{tp: 4, pp: 2}", 1));
  ASSERT_FALSE(shipped.systems[0].accelerator.efficiency_profile.empty());
  const RunSpec with_profile = resolve_run(shipped, first_valid_plan(shipped));
  ASSERT_NE(with_profile.replica.cost.kernels, nullptr);
  EXPECT_NE(with_profile.replica.cost.kernels->name().find("h200"), std::string::npos);

  const Experiment constants =
      parse_resolved(body("{tp: 4, pp: 2}", 1, ", efficiency: {compute: 0.7, memory: 0.8, network: 0.8}"));
  const RunSpec with_constants = resolve_run(constants, first_valid_plan(constants));
  EXPECT_EQ(with_constants.replica.cost.kernels, nullptr);
  EXPECT_EQ(with_constants.replica.cost.efficiency.compute, 0.7);
  EXPECT_EQ(with_constants.replica.cost.efficiency.memory, 0.8);
  EXPECT_EQ(with_constants.replica.cost.efficiency.network, 0.8);
}

// A catalog root whose h200 names the profile by a path relative to the root, as catalog files do.
std::string root_with_profile() {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "agentsim_resolved_run_root";
  fs::remove_all(root);
  fs::create_directories(root / "workloads/catalog");
  fs::create_directories(root / "hwmodels");
  fs::copy(kRoot + "/hwmodels/catalog", root / "hwmodels/catalog", fs::copy_options::recursive);
  fs::copy(kRoot + "/workloads/catalog/models", root / "workloads/catalog/models", fs::copy_options::recursive);
  fs::create_directories(root / "experiments");
  fs::copy(kRoot + "/experiments/catalog", root / "experiments/catalog", fs::copy_options::recursive);
  fs::copy_file(write_profile(), root / "profile.yaml");
  // Point h200 at the fixture instead of its shipped profile.
  const fs::path h200 = root / "hwmodels/catalog/accelerators/h200.yaml";
  std::ifstream in(h200);
  std::string text, line;
  while (std::getline(in, line)) text += (line.rfind("efficiency_profile:", 0) == 0 ? "efficiency_profile: profile.yaml" : line) + "\n";
  in.close();
  std::ofstream(h200) << text;
  return root.string();
}

TEST(ResolvedRunProfile, RunAndExplainPriceTheSameStepWithTheProfile) {
  const std::string root = root_with_profile();
  const Experiment e = parse_experiment(body("{tp: 4, pp: 2}", 1), root + "/resolved.yaml", root);
  const RunSpec spec = resolve_run(e, first_valid_plan(e));
  ASSERT_NE(spec.replica.cost.kernels, nullptr);
  serving::StepBatch batch;
  batch.decodes.assign(16, serving::DecodeItem{8192});
  const double run_s = serving::step_cost(batch, e.model, spec.system, spec.replica.cost).total_s;

  // explain with the experiment's defaults: no constant efficiencies (they would replace the profile), the default engine's host-time model.
  const std::string out = root + "/explain.json";
  const std::string cmd = std::string(AGENTSIM_BINARY) + " --root " + root +
                          " explain --model llama-3.1-70b --system hgx-h200 --plan tp=4,pp=2 --batch decode=16@8192"
                          " --engine vllm --json > " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string j = slurp(out);
  EXPECT_NE(j.find("\"efficiency\": \"profile fixture (test)\""), std::string::npos) << j.substr(0, 400);
  const std::size_t at = j.find("\"total_s\": ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_DOUBLE_EQ(std::stod(j.substr(at + 11)), run_s);
}

}  // namespace
}  // namespace agentsim::exp

namespace agentsim::exp {
namespace {

// Attention DP: each DP rank holds the KV of its own sequences, so the replica's HBM KV is the
// per-device capacity times the DP ranks (DeepSeek-R1 at dp=8, ep=8 on HGX H200: ~20 GB per GPU
// after ~100 GB of FP8 weights, ~70 kB of MLA KV per token: well over 1.6 M tokens, where one
// rank's pool alone was 0.27 M and 256 agents of 9k tokens queued for minutes); and the engines
// whose DP ranks schedule on their own (vLLM, TensorRT-LLM) give each rank the batch limits.
TEST(ResolvedRunAttentionDp, KvAndBatchLimitsArePerDpRank) {
  auto spec_for = [](const std::string& engine, const std::string& plan) {
    const Experiment e = parse_resolved("name: dp\nmodel: deepseek-r1\nsystem: hgx-h200\ndeployment: " + plan +
                               "\nserving: {engine: " + engine + ", max_batch_tokens: 8192, max_sequences: 256}\n"
                               "workload:\n  trace: " + kTrace + "\n  concurrency: [4]\n  warmup: \"0s\"\n  window: \"20s\"\n");
    return resolve_run(e, first_valid_plan(e), 16);
  };
  const RunSpec trt = spec_for("trtllm", "{tp: 1, ep: 8, dp: 8}");
  const RunSpec sgl = spec_for("sglang", "{tp: 1, ep: 8, dp: 8}");
  const RunSpec vll = spec_for("vllm", "{tp: 8, ep: 8}");
  EXPECT_EQ(trt.replica.kv_capacity_tokens % 8, 0);
  EXPECT_GT(trt.replica.kv_capacity_tokens, 1600000);
  EXPECT_EQ(trt.replica.kv_capacity_tokens, sgl.replica.kv_capacity_tokens);
  EXPECT_EQ(trt.replica.max_batch_tokens, 8 * 8192);  // TensorRT-LLM: per attention-DP rank
  EXPECT_EQ(trt.replica.max_sequences, 8 * 256);
  EXPECT_EQ(sgl.replica.max_batch_tokens, 8192);      // SGLang divides its limits by dp_size
  EXPECT_EQ(sgl.replica.max_sequences, 256);
  EXPECT_EQ(vll.replica.max_batch_tokens, 8192);      // no attention DP: one scheduler
  // The engine's step composition reaches the replica: SGLang runs prefill steps alone.
  EXPECT_FALSE(sgl.replica.mixed_batches);
  EXPECT_TRUE(trt.replica.mixed_batches);
  EXPECT_TRUE(vll.replica.mixed_batches);
  // At dp=1 the MLA KV is whole on every TP rank: one pool, smaller weights per device.
  EXPECT_LT(vll.replica.kv_capacity_tokens, trt.replica.kv_capacity_tokens);
}

// A what-if HBM of 10^30 bytes is a lot of KV, not none: the token count is held at 10^15 a
// device instead of overflowing its conversion to an integer (undefined behaviour, which read as
// "weights ... leave no KV cache").
TEST(ResolvedRun, AnEnormousWhatIfCapacityHoldsTheKvTokenCount) {
  const Experiment e = parse_resolved(body("{tp: 8}", 1) + "what_if: {h200: {hbm_capacity: 1e30B}}\n");
  const RunSpec spec = resolve_run(e, first_valid_plan(e), 16);
  EXPECT_EQ(spec.replica.kv_capacity_tokens, 1'000'000'000'000'000LL);
  EXPECT_NO_THROW(check_kv_fits(e, spec));
}

// `serving.context_wait` gives the attention-DP balance to attention-DP plans (with their rank
// count) and batch waiting to the others (its token threshold a share of max_batch_tokens), as
// TensorRT-LLM applies them; a ratio above 1 is refused at its key.
TEST(ResolvedRun, ContextWaitReachesTheReplicaAsTensorRtLlmAppliesIt) {
  auto spec_for = [](const std::string& deployment, const std::string& serving) {
    const Experiment e = parse_resolved("name: r\nmodel: deepseek-r1\nsystem: hgx-b200\ndeployment: " + deployment +
                                        "\nserving: " + serving + "\nworkload:\n  trace: " + kTrace +
                                        "\n  concurrency: [4]\n  warmup: \"0s\"\n  window: \"20s\"\n");
    return resolve_run(e, first_valid_plan(e), 16);
  };
  const std::string wait =
      "{engine: trtllm, max_batch_tokens: 8192, context_wait: {balance_timeout_steps: 60, batch_wait_steps: 40, "
      "batch_wait_max_tokens_ratio: 0.8}}";
  const serving::ContextWait dp = spec_for("{tp: 1, ep: 8, dp: 8}", wait).replica.context_wait;
  EXPECT_EQ(dp.balance_timeout_steps, 60);
  EXPECT_EQ(dp.balance_ranks, 8);
  EXPECT_EQ(dp.batch_wait_steps, 0);
  const serving::ContextWait tp = spec_for("{tp: 8}", wait).replica.context_wait;
  EXPECT_EQ(tp.balance_timeout_steps, 0);
  EXPECT_EQ(tp.batch_wait_steps, 40);
  EXPECT_DOUBLE_EQ(tp.batch_wait_tokens, 0.8 * 8192);
  EXPECT_FALSE(spec_for("{tp: 8}", "{engine: trtllm}").replica.context_wait.active());
  try {
    spec_for("{tp: 8}", "{context_wait: {batch_wait_max_tokens_ratio: 1.5}}");
    FAIL() << "accepted";
  } catch (const core::Error& err) {
    EXPECT_NE(std::string(err.what()).find("serving.context_wait.batch_wait_max_tokens_ratio: expected a number in [0, 1]"),
              std::string::npos)
        << err.what();
  }
}

// `serving.disaggregation`'s decode keys reach the decode pool only: its running-sequence limit (per
// attention-DP rank under TensorRT-LLM) and how a prefilled request picks its decode replica.
TEST(ResolvedRun, DecodePoolLimitAndRouterReachTheDecodeReplicasOnly) {
  auto spec_for = [](const std::string& deployment, const std::string& disagg) {
    const Experiment e = parse_resolved(
        "name: r\nmodel: deepseek-r1\nsystem: hgx-b200\ndeployment: " + deployment +
        "\nserving: {engine: trtllm, max_sequences: 64, disaggregation: {prefill_replicas: 1, decode_replicas: 1, "
        "systems: 2" + disagg + "}}\nworkload:\n  trace: " + kTrace +
        "\n  concurrency: [4]\n  warmup: \"0s\"\n  window: \"20s\"\n");
    return resolve_run(e, first_valid_plan(e), 16);
  };
  const RunSpec plain = spec_for("{tp: 8}", "");
  EXPECT_EQ(plain.replica.max_sequences, 64);
  EXPECT_EQ(plain.prefill.max_sequences, 64);
  EXPECT_EQ(plain.cluster.decode_router, serving::RouterPolicy::kLeastLoaded);
  const RunSpec capped = spec_for("{tp: 8}", ", decode_max_sequences: 2, decode_router: round_robin");
  EXPECT_EQ(capped.replica.max_sequences, 2);
  EXPECT_EQ(capped.prefill.max_sequences, 64);
  EXPECT_EQ(capped.cluster.decode_router, serving::RouterPolicy::kRoundRobin);
  EXPECT_EQ(spec_for("{tp: 1, ep: 8, dp: 8}", ", decode_max_sequences: 2").replica.max_sequences, 16);
}

// `serving.scheduler_recv_interval` reaches every replica (SGLang's launch flag; 1 when absent), and
// a value below 1 is refused at its key.
TEST(ResolvedRun, SchedulerRecvIntervalReachesTheReplica) {
  auto spec_for = [](const std::string& serving) {
    const Experiment e = parse_resolved("name: r\nmodel: deepseek-r1\nsystem: hgx-b200\ndeployment: {tp: 8}\nserving: " + serving +
                               "\nworkload:\n  trace: " + kTrace + "\n  concurrency: [4]\n  warmup: \"0s\"\n  window: \"20s\"\n");
    return resolve_run(e, first_valid_plan(e), 16);
  };
  EXPECT_EQ(spec_for("{engine: sglang, scheduler_recv_interval: 30}").replica.recv_interval_steps, 30);
  EXPECT_EQ(spec_for("{engine: sglang}").replica.recv_interval_steps, 1);
  try {
    spec_for("{engine: sglang, scheduler_recv_interval: 0}");
    FAIL() << "accepted";
  } catch (const core::Error& err) {
    EXPECT_NE(std::string(err.what()).find("scheduler_recv_interval"), std::string::npos) << err.what();
  }
}

// `deployment.cuda_graph` unset follows the host-time model: decode replays from graphs when an
// engine's model prices the host time (the engines replay by default, and their fitted host times
// assume it), eager with a constant `serving.step_overhead`; a value given wins either way. The
// replayed decode step is the shorter (graph-replay launch floor).
TEST(ResolvedRun, CudaGraphDefaultFollowsTheHostTimeModel) {
  auto experiment = [](const std::string& deployment, const std::string& serving) {
    return parse_resolved("name: r\nmodel: deepseek-r1\nsystem: hgx-b200\ndeployment: " + deployment +
                          "\nserving: " + serving + "\nworkload:\n  trace: " + kTrace +
                          "\n  concurrency: [4]\n  warmup: \"0s\"\n  window: \"20s\"\n");
  };
  auto graph = [&](const std::string& deployment, const std::string& serving) {
    const Experiment e = experiment(deployment, serving);
    return resolve_run(e, first_valid_plan(e), 16).replica.cost.cuda_graph;
  };
  EXPECT_TRUE(graph("{tp: 8}", "{engine: sglang}"));
  EXPECT_FALSE(graph("{tp: 8}", "{engine: sglang, step_overhead: 2ms}"));
  EXPECT_FALSE(graph("{tp: 8, cuda_graph: false}", "{engine: sglang}"));
  EXPECT_TRUE(graph("{tp: 8, cuda_graph: true}", "{step_overhead: 2ms}"));
  serving::StepBatch decode;
  decode.decodes.assign(4, serving::DecodeItem{1024});
  auto step_s = [&](const std::string& deployment) {
    const Experiment e = experiment(deployment, "{engine: sglang}");
    const RunSpec spec = resolve_run(e, first_valid_plan(e), 16);
    return serving::step_cost(decode, e.model, spec.system, spec.replica.cost).total_s;
  };
  EXPECT_LT(step_s("{tp: 8}"), step_s("{tp: 8, cuda_graph: false}"));
}

// The engines catalog (experiments/catalog/engines.yaml) follows the catalogs' citation rule:
// every number cites its source or says assumed with its derivation.
TEST(EngineCatalog, EveryDataLineCitesASourceOrSaysAssumed) {
  const test_support::CitationScan scan =
      test_support::scan_citations(AGENTSIM_SOURCE_DIR, {"experiments/catalog"}, {});
  for (const auto& f : scan.failures) ADD_FAILURE() << f.where << ": " << f.why << "\n  " << f.line;
  EXPECT_GE(scan.data_lines, 15);  // three engines x five values
  EXPECT_GT(scan.sourced + scan.assumed, 0);
}

// Every measured ATOM row is one (system, model) group, so the cross-validation fold that leaves it
// out prices those rows at the catalog's ATOM values: they must not be ATOM's own fit (which would
// leak the rows into their out-of-sample predictions) but the assumption they stand for, vLLM's.
TEST(EngineCatalog, AtomsHostTimesAreVllmsNotAFitToItsOwnRows) {
  const auto engines = serving::decode_engines(core::YamlNode::load_file(kRoot + "/experiments/catalog/engines.yaml"));
  const auto& atom = engines[static_cast<std::size_t>(serving::Engine::kAtom)];
  const auto& vllm = engines[static_cast<std::size_t>(serving::Engine::kVllm)];
  EXPECT_EQ(atom.graph_fixed_s, vllm.graph_fixed_s);
  EXPECT_EQ(atom.fixed_s, vllm.fixed_s);
  EXPECT_EQ(atom.request_latency_s, vllm.request_latency_s);
}

// SGLang's decode_all_to_all_nic_efficiency is DeepEP's low-latency kernels' measured share of the
// NIC rate (calibration/data/published/kernels/collectives.csv, the June-2025 table in
// docs/legacy.md, NVLink used for same-node peers): per internode row of 32 to 256 ranks, the
// bytes of 128 tokens x top-8 (FP8 dispatch with a float32 scale per 128 of hidden 7,168; BF16
// combine) that leave the node, (ep - ep/nodes) / ep of them, at 400 Gb/s, over the latency;
// their mean. The engines without such kernels state none.
TEST(EngineCatalog, DecodeAllToAllEfficiencyIsDeepEpLowLatencysMeasuredShare) {
  const std::string path = kRoot + "/calibration/data/published/kernels/collectives.csv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  core::CsvReader csv(in, path);
  double sum = 0;
  int rows = 0;
  while (csv.next()) {
    if (csv.field(csv.column("library")) != "DeepEP V1 low-latency" ||
        csv.field(csv.column("source")).find("docs/legacy.md") == std::string::npos) {
      continue;
    }
    const double ep = csv.number(csv.column("gpus")), nodes = csv.number(csv.column("nodes"));
    if (ep < 32) continue;
    const bool dispatch = csv.field(csv.column("op")).find("dispatch") != std::string::npos;
    const double bytes_per_pair = dispatch ? 7168 + 7168 / 128 * 4 : 7168 * 2;
    const double off_node = (ep - ep / nodes) / ep;
    sum += 128 * 8 * bytes_per_pair * off_node / 50e9 / (csv.number(csv.column("latency_us")) * 1e-6);
    ++rows;
  }
  ASSERT_EQ(rows, 8);  // dispatch and combine at 32, 64, 128 and 256 ranks
  const auto engines = serving::decode_engines(core::YamlNode::load_file(kRoot + "/experiments/catalog/engines.yaml"));
  EXPECT_NEAR(engines[static_cast<std::size_t>(serving::Engine::kSglang)].decode_all_to_all_nic_efficiency, sum / rows, 0.005);
  EXPECT_EQ(engines[static_cast<std::size_t>(serving::Engine::kVllm)].decode_all_to_all_nic_efficiency, 0);
  EXPECT_EQ(engines[static_cast<std::size_t>(serving::Engine::kTrtllm)].decode_all_to_all_nic_efficiency, 0);
}

// Where the EP group spans systems, SGLang's decode steps move their all-to-all at that share of
// the links' rate; its prefill steps (DeepEP's normal kernels) and an EP group within one system
// at the network efficiency, as every other collective.
TEST(EngineCatalog, DecodeAllToAllEfficiencyPricesOnlyDecodeStepsOfAnEpGroupAcrossSystems) {
  // A step's all-to-all transfer seconds, the network efficiency and the engine's stated one.
  struct Priced {
    double a2a_s = 0, network = 0, stated = 0;
  };
  auto a2a_s = [](const std::string& system, const std::string& plan, bool decode, bool stated) {
    const Experiment e = parse_resolved(
        "name: a2a\nmodel: deepseek-v3\nsystem: " + system + "\ndeployment: " + plan +
        "\nserving: {engine: sglang, fast_forward: false}\nworkload:\n  trace: " + kTrace +
        "\n  concurrency: [4]\n  warmup: \"0s\"\n  window: \"20s\"\n");
    RunSpec spec = resolve_run(e, first_valid_plan(e));
    if (!stated) spec.replica.cost.engine.decode_all_to_all_nic_efficiency = 0;
    serving::StepBatch b;
    if (decode) {
      b.decodes.assign(256, serving::DecodeItem{2000});
    } else {
      b.prefills.assign(4, serving::PrefillChunk{4096, 0, true});
    }
    const serving::StepCost c = serving::step_cost(b, e.model, spec.system, spec.replica.cost);
    double s = 0;
    for (const auto& row : c.breakdown.collectives) {
      if (row.kind.rfind("all_to_all", 0) == 0) s += row.transfer_s;
    }
    return Priced{s, spec.replica.cost.efficiency.network, e.serving.engine_overhead.decode_all_to_all_nic_efficiency};
  };
  // Speculative decoding on (DeepSeek V3's MTP drafter): its verified drafts are still a decode step.
  const Priced wide = a2a_s("hgx-h100", "{dp: 32, ep: 32}", true, true);
  const Priced wide_plain = a2a_s("hgx-h100", "{dp: 32, ep: 32}", true, false);
  ASSERT_GT(wide_plain.a2a_s, 0);
  ASSERT_GT(wide.stated, 0) << "SGLang states its decode all-to-all efficiency";
  const double ratio = wide.network / wide.stated;
  EXPECT_NEAR(wide.a2a_s / wide_plain.a2a_s, ratio, 0.01 * ratio);
  const double prefill = a2a_s("hgx-h100", "{dp: 32, ep: 32}", false, true).a2a_s;
  EXPECT_GT(prefill, 0);
  EXPECT_EQ(prefill, a2a_s("hgx-h100", "{dp: 32, ep: 32}", false, false).a2a_s);
  const double one_system = a2a_s("hgx-h200", "{dp: 8, ep: 8}", true, true).a2a_s;
  EXPECT_GT(one_system, 0);
  EXPECT_EQ(one_system, a2a_s("hgx-h200", "{dp: 8, ep: 8}", true, false).a2a_s);
}

// Each step's span is rounded to whole nanosecond ticks while its parts keep the priced
// seconds: a replica busy the whole window on steps that rounded down has parts summing past
// the window. The accounting fills the span with them instead of stopping with "steps cover
// more accelerator time than the window holds" (found by validate --cv with a 29 us
// per-sequence host time on TensorRT-LLM rows).
TEST(RunAccounting, StepsRoundedDownToWholeTicksStillFitTheWindow) {
  const Experiment e = parse_resolved(body("{tp: 8}", 1));
  const RunSpec spec = resolve_run(e, first_valid_plan(e));
  // Priced 4.9999994 ms, on the clock 4,999,999 ticks: back to back through the window, the
  // last one straddling its end.
  const double priced_s = 4.9999994e-3, span_s = 4.999999e-3;
  const int steps = static_cast<int>(spec.end_s / span_s) + 1;
  metrics::Recorder rec;
  for (int i = 0; i < steps; ++i) {
    metrics::StepRecord s;
    s.start_s = i * span_s;
    s.end_s = (i + 1) * span_s;
    s.batch_sequences = 1;
    s.memory_s = priced_s;
    rec.add(s);
  }
  ASSERT_GT(spec.end_s * priced_s / span_s, spec.end_s * (1 + 1e-9));  // the parts alone overflow the window
  RunResult r;
  ASSERT_NO_THROW(account_run(r, e, spec, rec, spec.accelerators()));
  EXPECT_NEAR(r.power.memory_s, spec.end_s, 1e-9);  // the busy spans, not the priced seconds
  EXPECT_LE(r.power.accelerators_w, spec.system.accelerators * spec.system.accelerator.tdp_w);
}

}  // namespace
}  // namespace agentsim::exp
