// agentsim explain --model M --system S [--plan tp=8,ep=8] --batch decode=64@32768,prefill=1x4096@0
//   [--overlap none|comm|two_batch] [--cuda-graph] [--ep-imbalance X] [--micro-batches N]
//   [--host-kv-tokens N] [--host-prefetch] [--engram default|gpu|host] [--no-engram-prefetch]
//   [--spec auto|off|0.8,0.6] [--efficiency 0.7,0.8,0.8]
//   [--step-overhead 2ms] [--kernel grouped_gemm_fp8=deepgemm] [--fidelity analytical|flow] [--json]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/config/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/explain_compare.hpp"
#include "experiments/cli/option_values.hpp"
#include "sim/core/decode_helpers.hpp"
#include "calibration/kernel_implementation.hpp"
#include "experiments/run/resolve_run.hpp"
#include "sim/core/error.hpp"
#include "sim/core/format_g.hpp"
#include "sim/core/units.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "workloads/model/moe_expectation.hpp"
#include "workloads/model/weight_format.hpp"
#include "sim/serving/replica_plan.hpp"
#include "sim/serving/step_cost.hpp"

namespace agentsim::cli {

namespace {

struct ExplainArgs {
  std::string model, system, plan, batch = "decode=1@4096", overlap = "none", spec = "auto", efficiency;
  std::string step_overhead, engine = "vllm", fidelity = "analytical", engram = "default";
  std::string weights, experts, kv_cache;  // empty: the model card's precision
  std::string compare;                     // --compare SYSTEM: the same step there, op by op
  std::vector<std::string> kernels;        // --kernel TABLE=ID: serving.kernels
  bool cuda_graph = false, eager = false, host_prefetch = false, no_engram_prefetch = false, json = false;
  double ep_imbalance = 1.0, host_kv_tokens = 0;
  int micro_batches = 1;
};

std::vector<double> numbers(const std::string& s, const std::string& what) {
  std::vector<double> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw core::Error(what + ": '" + item + "' is not a number");
    }
  }
  return v;
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// The plan's group a breakdown row's collective runs on ("tp", "ep", "pp").
std::string group_of(const std::string& kind) {
  if (kind == wl::to_string(wl::CollectiveOp::kAllReduce)) return "tp";
  if (kind == wl::to_string(wl::CollectiveOp::kSendRecv)) return "pp";
  return "ep";
}

// Expert placement, the systems spanned, and each collective group with the links it crosses.
void print_layout(const wl::ModelSpec& model, const hw::System& system, const wl::ParallelPlan& plan,
                  const serving::StepCostOptions& opt, const serving::StepBreakdown& bd) {
  const int nodes = plan.nodes(system.accelerators);
  if (nodes > 1) {
    std::printf("\nreplica spans %d systems of %d (%d devices); scale-out: %d NICs per system at %.0f Gb/s, %.1f us "
                "one-way (catalog scale_out)\n",
                nodes, system.accelerators, plan.devices(), system.scale_out.nics,
                system.scale_out.nic_bw_Bps * 8 / 1e9, system.scale_out.latency_s * 1e6);
  }
  if (model.ffn.experts > 0 && plan.ep > 1) {
    std::printf("%sexperts: %d routed + %d redundant over ep=%d ranks: %d slots per rank, each split %d ways; "
                "ep_imbalance %.3g on the busiest rank\n",
                nodes > 1 ? "" : "\n", model.ffn.experts, plan.redundant_for(model.ffn.experts), plan.ep,
                plan.experts_per_rank(model.ffn.experts), plan.expert_tp(), opt.ep_imbalance);
    if (model.ffn.expert_load_cv > 0) {
      const int redundant = plan.redundant_for(model.ffn.experts);
      std::printf("expert popularity (model card: expert loads' CV %.3g; %s): the busiest rank routes at least %.3f x "
                  "the mean rank's tokens\n",
                  model.ffn.expert_load_cv,
                  redundant > 0 ? ("redundant experts placed by a load balancer, rank loads' CV " +
                                   core::format_g(model.ffn.expert_load_cv_balanced)).c_str()
                                : "no redundant experts, contiguous placement",
                  wl::expected_busiest_rank_skew(model.ffn.experts, plan.ep, redundant, model.ffn.expert_load_cv,
                                                 model.ffn.expert_load_cv_balanced));
    }
  }
  if (plan.pp > 1) {
    const int m = std::max(1, opt.micro_batches);
    std::printf("pipeline: %d stages, %d micro-batches: bubble (pp - 1) / (micro + pp - 1) = %.3f of the step "
                "(%.3f ms)\n",
                plan.pp, m, static_cast<double>(plan.pp - 1) / (m + plan.pp - 1), bd.bubble_s * 1e3);
  }
  if (!opt.collectives) return;
  std::printf("\n%-5s %-11s %7s %7s %11s %11s  %s\n", "group", "collective", "members", "systems", "latency us",
              "transfer us", "links crossed (from its first member)");
  for (const serving::CollectiveGroup& g : opt.collectives->groups()) {
    if (g.members < 2) continue;
    double latency = 0, transfer = 0;
    for (const serving::CollectiveCostRow& r : bd.collectives) {
      if (group_of(r.kind) != g.name) continue;
      latency += r.latency_s;
      transfer += r.transfer_s;
    }
    std::printf("%-5s %-11s %7d %7d %11.1f %11.1f  %s\n", g.name.c_str(), g.collective.c_str(), g.members, g.systems,
                latency * 1e6, transfer * 1e6, g.links().c_str());
  }
}

int run_explain(const ExplainArgs& a, const Context& ctx) {
  const exp::Catalog catalog = exp::load_catalog(ctx.root);
  // The card's precision unless --weights/--experts/--kv-cache say otherwise (as a run's what_if would).
  wl::ModelSpec card = catalog.models.get(a.model);
  try {
    card.precision.override_formats(a.weights, a.experts, a.kv_cache, card.ffn.experts > 0);
  } catch (const core::Error& e) {
    throw core::Error("--" + e.detail());  // "--weights: ...", the flag that named it
  }
  const wl::ModelSpec& model = card;
  const hw::System& system = catalog.systems.get(a.system);
  if (a.engram != "default" && a.engram != "gpu" && a.engram != "host") {
    throw core::Error("--engram: unknown '" + a.engram + "'; valid: default, gpu, host");
  }
  // Engram where the model's catalog places it unless --engram says otherwise.
  wl::ModelSpec placed = model;
  if (a.engram != "default") placed.engram.host_resident = a.engram == "host";
  wl::ParallelPlan plan = a.plan.empty() ? serving::choose_plan(placed, system) : wl::parse_parallel_plan(a.plan);
  plan.engram_on_host = placed.engram.host_resident;
  const serving::PlanCheck check = serving::check_plan(model, system, plan);
  if (!check.ok) throw core::Error(check.reason);

  // The step is priced as a run of this plan would price it (experiments/run/resolve_run.hpp).
  exp::Experiment x;
  x.root = ctx.root;
  x.model = model;
  x.systems = {system};
  exp::Plan& p = x.plans.emplace_back();
  p.label = plan.to_string();
  exp::DeploymentConfig& d = p.deployment;
  d.plan = plan;
  // As in a run: explicit constants replace the accelerator's calibration profile.
  if (!a.efficiency.empty()) {
    const std::vector<double> e = numbers(a.efficiency, "--efficiency");
    if (e.size() != 3 || e[0] <= 0 || e[0] > 1 || e[1] <= 0 || e[1] > 1 || e[2] <= 0 || e[2] > 1) {
      throw core::Error("--efficiency: expected compute,memory,network fractions in (0, 1]");
    }
    x.serving.efficiency = {e[0], e[1], e[2]};
    x.serving.efficiency_given = true;
  }
  // --step-overhead replaces the engine's host-time model by a constant, as serving.step_overhead does.
  const auto engine = core::from_name(serving::kEngineNames, a.engine);
  if (!engine) {
    throw core::Error("--engine: " + core::unknown_name_message("engine", a.engine, core::names_of(serving::kEngineNames)));
  }
  x.serving.engine = *engine;
  for (const std::string& k : a.kernels) {
    if (const std::string why = calib::read_kernel_choice(k, x.serving.kernels); !why.empty()) throw core::Error("--kernel: " + why);
  }
  for (const auto& [table, id] : x.serving.kernels) x.serving.kernels_at[table] = core::SourceLocation{"", 0, "--kernel"};
  x.serving.engine_overhead = catalog.engine(*engine);
  x.serving.step_overhead_set = !a.step_overhead.empty();
  if (x.serving.step_overhead_set) {
    x.serving.step_overhead_s = option_quantity("--step-overhead", a.step_overhead, core::Dimension::kTime);
  }
  const auto overlap = core::from_name(serving::kOverlapNames, a.overlap);
  if (!overlap) {
    throw core::Error("--overlap: " +
                      core::unknown_name_message("overlap", a.overlap, core::names_of(serving::kOverlapNames)));
  }
  d.overlap = *overlap;
  if (a.fidelity != "analytical" && a.fidelity != "flow") {
    throw core::Error("--fidelity: unknown '" + a.fidelity + "'; valid: analytical, flow");
  }
  d.collective_fidelity =
      a.fidelity == "flow" ? serving::CollectiveFidelity::kFlow : serving::CollectiveFidelity::kAnalytical;
  // Unset: the run's default (replayed with the engine model, eager with --step-overhead).
  if (a.cuda_graph) d.cuda_graph = true;
  if (a.eager) d.cuda_graph = false;
  if (a.ep_imbalance < 1) throw core::Error("--ep-imbalance must be >= 1");
  d.ep_imbalance = a.ep_imbalance;
  d.micro_batches = a.micro_batches;
  d.host_prefetch = a.host_prefetch;
  d.engram_prefetch = !a.no_engram_prefetch;
  if (a.spec == "off") {
    d.spec_mode = exp::SpecMode::kOff;
  } else if (a.spec != "auto") {
    d.spec_mode = exp::SpecMode::kExplicit;
    d.spec.acceptance = numbers(a.spec, "--spec");
    d.spec.draft_tokens = static_cast<int>(d.spec.acceptance.size());
    serving::check_spec_decode(d.spec);
  }
  serving::StepCostOptions opt = exp::resolve_run(x, p).replica.cost;
  opt.host_kv_load_tokens = a.host_kv_tokens;
  const serving::StepBatch batch = serving::parse_step_batch(a.batch);
  const serving::StepCost c = serving::step_cost(batch, model, system, opt);
  if (!a.compare.empty()) {
    // The shipped comparisons of measured runs, where the source root has them.
    const std::filesystem::path shipped = std::filesystem::path(ctx.root) / calib::kShippedSystemComparisonsPath;
    std::optional<calib::SystemComparisons> validated;
    if (std::filesystem::exists(shipped)) validated = calib::load_system_comparisons(shipped.string());
    return explain_compare({&catalog, x, placed, batch, a.batch, a.host_kv_tokens, !a.plan.empty(), a.json, a.compare,
                            c, validated ? &*validated : nullptr, std::string(calib::kShippedSystemComparisonsPath)});
  }
  const serving::StepBreakdown& bd = c.breakdown;
  const serving::PlanPlacement place = serving::place_plan(plan);
  const std::string eff_name = opt.kernels ? opt.kernels->name()
                                            : "constant " + (a.efficiency.empty() ? std::string("1,1,1 (datasheet peaks)") : a.efficiency);
  const double tok_s = c.total_s > 0 ? bd.tokens_per_step / c.total_s : 0;
  const serving::EngineOverhead::Terms host = opt.engine.terms(batch, plan.attn_dp);
  const std::string host_model = x.serving.step_overhead_set ? "--step-overhead " + a.step_overhead : "engine " + a.engine;

  if (a.json) {
    nlohmann::json j;
    j["model"] = model.name;
    j["system"] = system.name;
    j["plan"] = plan.to_string();
    j["devices"] = plan.devices();
    j["systems"] = plan.nodes(system.accelerators);
    if (model.ffn.experts > 0 && plan.ep > 1) {
      j["experts"] = {{"routed", model.ffn.experts},
                      {"redundant", plan.redundant_for(model.ffn.experts)},
                      {"per_rank", plan.experts_per_rank(model.ffn.experts)},
                      {"ep_imbalance", opt.ep_imbalance}};
    }
    if (plan.pp > 1) {
      const int m = std::max(1, opt.micro_batches);
      j["pipeline"] = {{"stages", plan.pp}, {"micro_batches", m},
                       {"bubble_fraction", static_cast<double>(plan.pp - 1) / (m + plan.pp - 1)}};
    }
    if (opt.collectives) {
      nlohmann::json groups = nlohmann::json::array();
      for (const serving::CollectiveGroup& g : opt.collectives->groups()) {
        if (g.members < 2) continue;
        groups.push_back({{"group", g.name}, {"collective", g.collective}, {"members", g.members},
                          {"systems", g.systems}, {"off_system_peers", g.off_system_peers},
                          {"scale_up_bw_Bps", g.scale_up_bw_Bps}, {"scale_up_latency_s", g.scale_up_latency_s},
                          {"scale_out_bw_Bps", g.scale_out_bw_Bps}, {"scale_out_latency_s", g.scale_out_latency_s},
                          {"links", g.links()}});
      }
      j["collective_groups"] = groups;
    }
    j["tp_group"] = place.tp_group;
    j["ep_group"] = place.ep_group;
    j["batch"] = a.batch;
    j["precision"] = {{"weights", wl::format_name(model.precision.weights_format())},
                      {"weights_block", model.precision.weights_block},
                      {"experts", wl::format_name(model.precision.experts_format())},
                      {"experts_block", model.precision.experts_block},
                      {"kv_cache", std::string(hw::to_string(model.precision.kv_cache))}};
    j["efficiency"] = eff_name;
    j["collective_fidelity"] = a.fidelity;
    j["overlap"] = std::string(serving::to_string(opt.overlap));
    j["cuda_graph"] = opt.cuda_graph;
    nlohmann::json ops = nlohmann::json::array();
    for (const serving::OpCost& o : bd.ops) {
      ops.push_back({{"layer_kind", o.layer_kind}, {"op", o.op}, {"layers", o.layers}, {"dtype", o.dtype},
                     {"flops", o.flops}, {"weight_bytes", o.weight_bytes}, {"kv_bytes", o.kv_bytes},
                     {"act_bytes", o.act_bytes}, {"host_bytes", o.host_bytes}, {"kernels", o.kernels},
                     {"e_compute", o.e_compute}, {"e_memory", o.e_memory}, {"compute_s", o.compute_s},
                     {"memory_s", o.memory_s}, {"floor_s", o.floor_s}, {"host_s", o.host_s}, {"time_s", o.time_s},
                     {"bound", std::string(serving::to_string(o.bound))}, {"note", o.note}});
    }
    j["ops"] = ops;
    nlohmann::json cols = nlohmann::json::array();
    for (const serving::CollectiveCostRow& r : bd.collectives) {
      cols.push_back({{"kind", r.kind}, {"where", r.where}, {"group", r.group}, {"count", r.count},
                      {"payload_bytes", r.payload_bytes}, {"algorithm", r.algorithm}, {"latency_s", r.latency_s},
                      {"transfer_s", r.transfer_s}});
    }
    j["collectives"] = cols;
    const serving::CauseTotals& k = bd.causes;
    j["causes"] = {{"compute_s", k.compute_s}, {"hbm_s", k.hbm_s}, {"host_link_s", k.host_link_s},
                   {"network_s", k.network_s}, {"floor_s", k.floor_s}, {"overhead_s", k.overhead_s}};
    j["total_s"] = c.total_s;
    j["compute_s"] = c.compute_s;
    j["memory_s"] = c.memory_s;
    j["comm_latency_s"] = c.comm_latency_s;
    j["comm_transfer_s"] = c.comm_transfer_s;
    j["overhead_s"] = c.overhead_s;
    j["bound"] = c.compute_bound ? "compute" : "memory";
    j["flops"] = c.flops;
    j["weight_bytes"] = c.weight_bytes;
    j["kv_read_bytes"] = c.kv_read_bytes;
    j["bubble_s"] = bd.bubble_s;
    j["draft_s"] = bd.draft_s;
    j["hidden_comm_s"] = bd.hidden_comm_s;
    j["tokens_per_step"] = bd.tokens_per_step;
    j["spec_draft_tokens"] = opt.spec.draft_tokens;
    j["spec_acceptance"] = opt.spec.acceptance;
    j["verify_s"] = c.total_s - bd.draft_s;
    j["tokens_per_s_per_sequence"] = tok_s;
    j["engram"] = {{"placement", model.engram.table_bytes > 0 ? (plan.engram_on_host ? "host" : "hbm") : "none"},
                   {"prefetch", opt.engram_prefetch},
                   {"host_link", std::string(hw::to_string(system.host.gpu_link))},
                   {"host_link_bw_Bps_per_gpu", bd.host_link_bw_Bps},
                   {"host_bytes", bd.engram_host_bytes},
                   {"host_transfer_s", bd.engram_host_transfer_s},
                   {"host_exposed_s", bd.engram_host_exposed_s}};
    j["host_overhead"] = {{"model", host_model},
                          {"constant_s", opt.step_overhead_s},
                          {"graph", host.graph},
                          {"fixed_s", host.fixed_s},
                          {"sequences_s", host.sequences_s},
                          {"tokens_s", host.tokens_s},
                          {"overlap_scheduler", opt.engine.overlap_scheduler},
                          {"hidden_s", bd.host_hidden_s},
                          {"sum_s", opt.step_overhead_s + host.total_s() - bd.host_hidden_s}};
    j["notes"] = bd.notes;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }

  std::printf("%s on %s, plan %s (%d devices on %d system(s); TP group GPUs", model.name.c_str(),
              system.name.c_str(), plan.to_string().c_str(), plan.devices(), plan.nodes(system.accelerators));
  for (int g : place.tp_group) std::printf(" %d", g);
  const std::string collectives =
      opt.collectives ? a.fidelity + " (all-reduce: " + opt.collectives->all_reduce_source() + ")" : a.fidelity;
  std::printf(")\nbatch %s; efficiency: %s; collectives: %s; overlap %s; cuda graph %s\n", a.batch.c_str(),
              eff_name.c_str(), collectives.c_str(), std::string(serving::to_string(opt.overlap)).c_str(),
              opt.cuda_graph ? "on" : "off");
  std::printf("formats: weights %s; experts %s; kv cache %s\n\n", wl::describe(model.precision.weights_format()).c_str(),
              wl::describe(model.precision.experts_format()).c_str(),
              std::string(hw::to_string(model.precision.kv_cache)).c_str());
  std::printf("%-28s %-15s %6s %5s %10s %9s %9s %9s %9s %5s %5s %9s %9s %9s %9s  %s\n", "layer kind", "op", "layers",
              "dtype", "GFLOP", "weight MB", "KV MB", "act MB", "host MB", "e_c", "e_m", "compute us", "memory us",
              "floor us", "time us", "bound");
  for (const serving::OpCost& o : bd.ops) {
    std::printf("%-28s %-15s %6.1f %5s %10.3f %9.2f %9.2f %9.2f %9.2f %5.2f %5.2f %9.1f %9.1f %9.1f %9.1f  %s\n",
                o.layer_kind.c_str(), o.op.c_str(), o.layers, o.dtype.c_str(), o.flops / 1e9, o.weight_bytes / 1e6,
                o.kv_bytes / 1e6, o.act_bytes / 1e6, o.host_bytes / 1e6, o.e_compute, o.e_memory, o.compute_s * 1e6,
                o.memory_s * 1e6, o.floor_s * 1e6, (o.op == "host_kv_load" ? o.host_s : o.time_s) * 1e6,
                std::string(serving::to_string(o.bound)).c_str());
  }
  if (!bd.collectives.empty()) {
    std::printf("\n%-20s %-34s %5s %7s %12s %-12s %11s %11s\n", "collective", "where", "group", "count", "payload KB",
                "algorithm", "latency us", "transfer us");
    for (const serving::CollectiveCostRow& r : bd.collectives) {
      std::printf("%-20s %-34s %5d %7.2f %12.2f %-12s %11.1f %11.1f\n", r.kind.c_str(), r.where.c_str(), r.group,
                  r.count, r.payload_bytes / 1e3, r.algorithm.c_str(), r.latency_s * 1e6, r.transfer_s * 1e6);
    }
  }
  print_layout(model, system, plan, opt, bd);
  if (model.engram.table_bytes > 0 && plan.engram_on_host) {
    std::printf("\nEngram host link: %.3f MB of rows per device over %s at %.0f GB/s per GPU: transfer %.2f us, "
                "exposed %.2f us (prefetch %s)\n",
                bd.engram_host_bytes / 1e6, std::string(hw::to_string(system.host.gpu_link)).c_str(),
                bd.host_link_bw_Bps / 1e9, bd.engram_host_transfer_s * 1e6, bd.engram_host_exposed_s * 1e6,
                opt.engram_prefetch ? "on: gathered from step start" : "off");
  } else if (model.engram.table_bytes > 0) {
    std::printf("\nEngram tables in HBM (%.1f GB per device)\n",
                model.engram.table_bytes_with_scales / plan.devices() / 1e9);
  }
  const serving::CauseTotals& k = bd.causes;
  std::printf("\nby cause (ms): compute %.3f | HBM %.3f | host link %.3f | network %.3f | floors+latency %.3f | "
              "overhead %.3f\n",
              k.compute_s * 1e3, k.hbm_s * 1e3, k.host_link_s * 1e3, k.network_s * 1e3, k.floor_s * 1e3,
              k.overhead_s * 1e3);
  std::printf("host overhead (%s): %.3f ms = constant %.3f + fixed %.3f (%s) + sequences %.3f + tokens %.3f%s%s\n",
              host_model.c_str(), (opt.step_overhead_s + host.total_s() - bd.host_hidden_s) * 1e3,
              opt.step_overhead_s * 1e3, host.fixed_s * 1e3, host.graph ? "graph-replayed decode" : "eager",
              host.sequences_s * 1e3, host.tokens_s * 1e3,
              plan.attn_dp > 1 ? (" (one of " + std::to_string(plan.attn_dp) + " attention-DP schedulers' share)").c_str()
                               : "",
              !opt.engine.overlap_scheduler || host.sequences_s + host.tokens_s <= 0
                  ? ""
                  : (" - " + fmt("%.3f", bd.host_hidden_s * 1e3) +
                     " run alongside the step's device time by the overlap scheduler")
                        .c_str());
  std::printf("step %.3f ms (%s-bound roofline; comm hidden by overlap %.3f ms; bubble %.3f ms; drafting %.3f ms)\n",
              c.total_s * 1e3, c.compute_bound ? "compute" : "memory", bd.hidden_comm_s * 1e3, bd.bubble_s * 1e3,
              bd.draft_s * 1e3);
  std::printf("%s tokens/step per decoding sequence -> %s tok/s per sequence\n", fmt("%.3f", bd.tokens_per_step).c_str(),
              fmt("%.1f", tok_s).c_str());
  if (opt.spec.enabled()) {
    std::string acc;
    for (double q : opt.spec.acceptance) acc += (acc.empty() ? "" : ",") + fmt("%.3g", q);
    std::printf("speculative decoding: k=%d drafts (acceptance %s, %s): verify %d tokens per decoding sequence "
                "%.3f ms (the step less drafting) + draft %.3f ms\n",
                opt.spec.draft_tokens, acc.c_str(), a.spec == "auto" ? "the model's drafter" : "--spec",
                opt.spec.draft_tokens + 1, (c.total_s - bd.draft_s) * 1e3, bd.draft_s * 1e3);
  }
  for (const std::string& n : bd.notes) std::printf("note: %s\n", n.c_str());
  return 0;
}

}  // namespace

Command add_explain_command(CLI::App& app, const Context& ctx) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* sub = app.add_subcommand("explain", "price one engine step and show where the time goes");
  sub->add_option("--model", args->model, "model catalog name")->required();
  sub->add_option("--system", args->system, "system catalog name")->required();
  sub->add_option("--plan", args->plan, "tp=..,ep=..,pp=..,dp=.. (default: the valid plan on the fewest devices)");
  sub->add_option("--batch", args->batch, "decode=N@CONTEXT,prefill=NxTOKENS@CACHED")->capture_default_str();
  sub->add_option("--overlap", args->overlap, "none | comm | two_batch")->capture_default_str();
  CLI::Option* graph = sub->add_flag("--cuda-graph", args->cuda_graph,
                                     "decode kernels replayed from CUDA graphs (default with the engine's model)");
  sub->add_flag("--eager", args->eager, "decode kernels launched eagerly (default with --step-overhead)")->excludes(graph);
  sub->add_option("--ep-imbalance", args->ep_imbalance, "routing skew beyond uniform (busiest expert rank over the uniform-routing busiest rank)")->capture_default_str();
  sub->add_option("--micro-batches", args->micro_batches, "pipeline micro-batches")
      ->capture_default_str()->check(positive_number());
  sub->add_option("--host-kv-tokens", args->host_kv_tokens, "KV tokens loaded from host DRAM this step")
      ->check(non_negative_number());
  sub->add_flag("--host-prefetch", args->host_prefetch, "KV loads from host prefetched layer by layer");
  sub->add_option("--engram", args->engram, "Engram placement: default (the model's) | gpu | host")
      ->capture_default_str();
  sub->add_flag("--no-engram-prefetch", args->no_engram_prefetch,
                "Engram rows on host gathered inside the Engram op instead of from step start");
  sub->add_option("--spec", args->spec,
                  "speculative decoding: auto (the model's drafter), off, or acceptance per draft position, e.g. 0.8,0.6")
      ->capture_default_str();
  sub->add_option("--efficiency", args->efficiency,
                  "compute,memory,network constant fractions of peak, e.g. 0.7,0.8,0.8; replaces the accelerator's "
                  "calibration profile (default: the profile)");
  sub->add_option("--compare", args->compare,
                  "price the same step on a second system too and print both op by op (time ratio, bound, table)");
  sub->add_option("--kernel", args->kernels,
                  "TABLE=IMPLEMENTATION: the kernel pricing an op table instead of the engine's (serving.kernels), "
                  "e.g. grouped_gemm_fp8=deepgemm; repeatable");
  sub->add_option("--engine", args->engine, "serving engine whose host-time model prices the step: vllm | sglang | trtllm | atom")
      ->capture_default_str();
  sub->add_option("--step-overhead", args->step_overhead,
                  "constant host overhead per step, replacing the engine's model (default: the engine's model)");
  sub->add_option("--fidelity", args->fidelity, "collective model: analytical | flow")->capture_default_str();
  sub->add_option("--weights", args->weights,
                  "format of the weights (attention, dense FFN, shared experts): bf16, fp8, nvfp4, mxfp4 (fp4 keeps an "
                  "FP4 card's scales); default: the model card's");
  sub->add_option("--experts", args->experts, "format of the routed experts, as --weights (a dense model's FFN weights when --weights is not given); default: the model card's");
  sub->add_option("--kv-cache", args->kv_cache, "format of the KV cache, e.g. fp8; default: the model card's");
  sub->add_flag("--json", args->json, "JSON instead of the table");
  return {sub, [args, &ctx]() { return run_explain(*args, ctx); }};
}

}  // namespace agentsim::cli
