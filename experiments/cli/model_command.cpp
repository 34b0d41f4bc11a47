// agentsim model list | show NAME [--plan tp=8,ep=8] [--context N] [--engram gpu|host] [--json]
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/config/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/option_values.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "workloads/model/batch_work.hpp"
#include "workloads/model/plan_sharding.hpp"
#include "workloads/model/footprint.hpp"
#include "workloads/model/layer_stack.hpp"
#include "workloads/model/param_counts.hpp"

namespace agentsim::cli {

namespace {

std::string billions(double params) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fB", params / 1e9);
  return buf;
}
std::string bytes(double b) { return core::format_quantity(b, core::Dimension::kBytes); }

nlohmann::json work_json(const wl::BatchWork& w, double per) {
  nlohmann::json by = nlohmann::json::object();
  for (const auto& [dt, f] : w.flops_by_dtype()) by[std::string(hw::to_string(dt))] = f / per;
  return {{"flops", w.flops() / per},
          {"flops_by_dtype", by},
          {"weight_read_bytes", w.weight_read_bytes() / per},
          {"kv_read_bytes", w.kv_read_bytes() / per},
          {"kv_write_bytes", w.kv_write_bytes() / per},
          {"activation_bytes", w.act_bytes() / per},
          {"host_read_bytes", w.host_read_bytes() / per},
          {"collective_bytes", w.collective_bytes() / per}};
}

nlohmann::json show_json(const wl::ModelSpec& m, const wl::ParallelPlan& plan, double context) {
  const wl::ParamCounts c = wl::param_counts(m);
  const wl::Footprint f = wl::footprint(m, plan);
  wl::BatchShape decode;
  decode.decode_contexts = {context};
  wl::BatchShape prefill;
  prefill.prefill = {wl::PrefillShape{context, 0, true}};
  nlohmann::json kinds = nlohmann::json::array();
  for (const wl::LayerKind& k : wl::layer_stack(m)) kinds.push_back({{"kind", k.name()}, {"layers", k.count}});
  nlohmann::json j;
  j["name"] = m.name;
  j["display_name"] = m.display_name;
  j["attention"] = std::string(wl::to_string(m.attention.kind));
  j["layers"] = m.layers;
  j["layer_kinds"] = kinds;
  j["parameters"] = {
      {"convention", "total: main model, MTP excluded; active: LM head counted, input embedding not"},
      {"total", c.total()},
      {"active_prefill", c.active(wl::Phase::kPrefill)},
      {"active_decode", c.active(wl::Phase::kDecode)},
      {"active_decode_without_embeddings", c.active(wl::Phase::kDecode, wl::EmbeddingConvention::kNeither)},
      {"active_prefill_without_embeddings", c.active(wl::Phase::kPrefill, wl::EmbeddingConvention::kNeither)},
      {"routed_experts", c.routed_experts},
      {"embedding", c.embedding},
      {"lm_head", c.lm_head},
      {"mtp", c.mtp},
      {"published_total", m.published_total_params},
      {"published_active", m.published_active_params}};
  j["speculative"] = {{"method", m.speculative.method},
                      {"draft", m.speculative.draft_tokens},
                      {"acceptance", m.speculative.acceptance},
                      {"draft_layers", m.speculative.draft_layers}};
  j["weight_bytes"] = m.weight_bytes();
  j["kv_bytes_per_token"] = m.kv_bytes_per_token();
  j["kv_bytes_at_context"] = m.kv_bytes_for_context(context);
  j["engram"] = {{"params", m.engram.published_params},
                 {"table_bytes", m.engram.table_bytes},
                 {"table_bytes_with_scales", m.engram.table_bytes_with_scales},
                 {"rows_per_token", m.engram.rows_per_token},
                 {"read_bytes_per_token", m.engram.rows_per_token * (m.engram.row_bytes + m.engram.scale_bytes_per_row)}};
  j["plan"] = {{"tp", plan.tp}, {"ep", plan.ep}, {"pp", plan.pp}, {"attn_dp", plan.attn_dp},
               {"devices", plan.devices()}, {"engram_on_host", plan.engram_on_host}};
  j["per_device"] = {{"weight_bytes", f.weight_bytes()},
                     {"sharded_weight_bytes", f.sharded_weight_bytes},
                     {"replicated_weight_bytes", f.replicated_weight_bytes},
                     {"expert_weight_bytes", f.expert_weight_bytes},
                     {"experts_per_device", f.experts_per_device},
                     {"kv_bytes_per_token", f.kv_bytes_per_token},
                     {"activation_bytes_per_token", f.activation_bytes_per_token},
                     {"engram_hbm_bytes", f.engram_hbm_bytes},
                     {"host_bytes", f.host_bytes},
                     {"host_read_bytes_per_token", f.host_read_bytes_per_token}};
  j["context"] = context;
  j["per_token_per_device"] = {{"decode", work_json(wl::batch_work(m, plan, decode), 1.0)},
                               {"prefill", work_json(wl::batch_work(m, plan, prefill), context)}};
  return j;
}

void print_show(const nlohmann::json& j) {
  const auto& p = j["parameters"];
  std::printf("%s (%s): %s attention, %d layers\n", j["display_name"].get<std::string>().c_str(),
              j["name"].get<std::string>().c_str(), j["attention"].get<std::string>().c_str(), j["layers"].get<int>());
  for (const auto& k : j["layer_kinds"]) {
    std::printf("  %3d x %s\n", k["layers"].get<int>(), k["kind"].get<std::string>().c_str());
  }
  std::printf("parameters   total %s (published %s), MTP %s\n", billions(p["total"]).c_str(),
              billions(p["published_total"]).c_str(), billions(p["mtp"]).c_str());
  std::printf("             active per token: prefill %s, decode %s (LM head counted, embedding not)\n",
              billions(p["active_prefill"]).c_str(), billions(p["active_decode"]).c_str());
  if (const auto& sp = j["speculative"]; sp["draft"].get<int>() > 0) {
    double tokens = 1, chain = 1;
    std::string acc;
    for (const auto& x : sp["acceptance"]) {
      chain *= x.get<double>();
      tokens += chain;
      char one[32];
      std::snprintf(one, sizeof one, "%s%.3g", acc.empty() ? "" : ", ", x.get<double>());
      acc += one;
    }
    std::printf("drafter      %s, %d drafts per step, acceptance [%s] -> %.3f tokens/step (deployment.speculative: auto)\n",
                sp["method"].get<std::string>().c_str(), sp["draft"].get<int>(), acc.c_str(), tokens);
  }
  std::printf("weights      %s\n", bytes(j["weight_bytes"]).c_str());
  std::printf("KV cache     %.0f B/token; %s per sequence at %.0f tokens\n", j["kv_bytes_per_token"].get<double>(),
              bytes(j["kv_bytes_at_context"]).c_str(), j["context"].get<double>());
  if (j["engram"]["table_bytes"].get<double>() > 0) {
    std::printf("Engram       %s (%s with scales), %.0f rows = %.0f B read per token\n",
                bytes(j["engram"]["table_bytes"]).c_str(), bytes(j["engram"]["table_bytes_with_scales"]).c_str(),
                j["engram"]["rows_per_token"].get<double>(), j["engram"]["read_bytes_per_token"].get<double>());
  }
  const auto& pl = j["plan"];
  const auto& d = j["per_device"];
  std::printf("plan         tp=%d ep=%d pp=%d dp=%d (%d devices), engram on %s\n", pl["tp"].get<int>(),
              pl["ep"].get<int>(), pl["pp"].get<int>(), pl["attn_dp"].get<int>(), pl["devices"].get<int>(),
              pl["engram_on_host"].get<bool>() ? "host" : "HBM");
  std::printf("per device   weights %s (sharded %s, replicated %s, experts %s = %.1f experts/layer)\n",
              bytes(d["weight_bytes"]).c_str(), bytes(d["sharded_weight_bytes"]).c_str(),
              bytes(d["replicated_weight_bytes"]).c_str(), bytes(d["expert_weight_bytes"]).c_str(),
              d["experts_per_device"].get<double>());
  std::printf("             KV %.0f B/token, activations %.0f B/batch token, host %s\n",
              d["kv_bytes_per_token"].get<double>(), d["activation_bytes_per_token"].get<double>(),
              bytes(d["host_bytes"]).c_str());
  for (const char* phase : {"decode", "prefill"}) {
    const auto& w = j["per_token_per_device"][phase];
    std::printf("%-12s %.3g FLOP, weights %s, KV read %s, KV write %s, host %s, collectives %s per token\n", phase,
                w["flops"].get<double>(), bytes(w["weight_read_bytes"]).c_str(), bytes(w["kv_read_bytes"]).c_str(),
                bytes(w["kv_write_bytes"]).c_str(), bytes(w["host_read_bytes"]).c_str(),
                bytes(w["collective_bytes"]).c_str());
  }
}

}  // namespace

Command add_model_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string name;
    std::string plan = "tp=1";
    double context = 32768;
    std::string engram = "default";
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("model", "list the model catalog or show one model's footprints and work");
  sub->require_subcommand(1);
  CLI::App* list = sub->add_subcommand("list", "list catalog models");
  list->add_flag("--json", args->json, "JSON output");
  CLI::App* show = sub->add_subcommand("show", "parameters, footprints and per-token work of one model");
  show->add_option("name", args->name, "catalog name")->required();
  show->add_option("--plan", args->plan, "parallel plan, e.g. tp=8,ep=8,pp=1,dp=1")->capture_default_str();
  show->add_option("--context", args->context, "context length in tokens")->capture_default_str()->check(positive_number());
  show->add_option("--engram", args->engram, "Engram placement: default | gpu | host")
      ->check(CLI::IsMember({"default", "gpu", "host"}))
      ->capture_default_str();
  show->add_flag("--json", args->json, "JSON output");

  return Command{sub, [args, list, &ctx]() {
    const exp::Catalog catalog = exp::load_catalog(ctx.root);
    if (list->parsed()) {
      nlohmann::json all = nlohmann::json::array();
      if (!args->json) {
        std::printf("%-22s %-18s %6s %10s %10s %10s %12s\n", "name", "attention", "layers", "total", "prefill",
                    "decode", "KV B/token");
      }
      for (const std::string& name : catalog.models.names()) {
        const wl::ModelSpec& m = catalog.models.get(name);
        const wl::ParamCounts c = wl::param_counts(m);
        if (args->json) {
          all.push_back({{"name", name}, {"attention", std::string(wl::to_string(m.attention.kind))},
                         {"layers", m.layers}, {"total_params", c.total()},
                         {"active_prefill_params", c.active(wl::Phase::kPrefill)},
                         {"active_decode_params", c.active(wl::Phase::kDecode)},
                         {"kv_bytes_per_token", m.kv_bytes_per_token()}});
        } else {
          std::printf("%-22s %-18s %6d %10s %10s %10s %12.0f\n", name.c_str(),
                      std::string(wl::to_string(m.attention.kind)).c_str(), m.layers, billions(c.total()).c_str(),
                      billions(c.active(wl::Phase::kPrefill)).c_str(), billions(c.active(wl::Phase::kDecode)).c_str(),
                      m.kv_bytes_per_token());
        }
      }
      if (args->json) std::printf("%s\n", all.dump(2).c_str());
      return 0;
    }
    const wl::ModelSpec& m = catalog.models.get(args->name);
    wl::ParallelPlan plan = wl::parse_parallel_plan(args->plan);
    if (std::string why = wl::plan_sharding_problem(m, plan); !why.empty()) {
      throw core::Error("--plan " + args->plan + " for " + m.name + ": " + why);
    }
    plan.engram_on_host = args->engram == "default" ? m.engram.host_resident : args->engram == "host";
    const nlohmann::json j = show_json(m, plan, args->context);
    if (args->json) std::printf("%s\n", j.dump(2).c_str());
    else print_show(j);
    return 0;
  }};
}

}  // namespace agentsim::cli
