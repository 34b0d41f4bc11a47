#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "sim/core/decode_helpers.hpp"
#include "workloads/model/model_decoder.hpp"
#include "experiments/config/deployment_config.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/replica_plan.hpp"

namespace agentsim::exp {
using core::OptionSpec;
using core::YamlNode;

namespace {

constexpr std::array kDeploymentKeys = {
    OptionSpec{"tp", "integer", "1", "tensor-parallel degree"},
    OptionSpec{"ep", "integer", "1",
               "expert-parallel degree (divides tp x dp; need not divide the routed experts: redundant experts fill the ranks)"},
    OptionSpec{"pp", "integer", "1", "pipeline stages"},
    OptionSpec{"dp", "integer", "1", "attention data-parallel groups (with expert parallel)"},
    OptionSpec{"redundant_experts", "integer", "fewest dividing",
               "redundant routed-expert copies over the EP ranks (each rank holds ceil((routed + redundant) / ep)); "
               "default: the fewest that make routed + redundant a multiple of ep"},
    OptionSpec{"nodes", "integer", "tp x dp x pp / accelerators",
               "systems one replica spans (a plan of more devices than a system has fills whole systems joined by "
               "their scale-out NICs); when given, must equal ceil(tp x dp x pp / the system's accelerators)"},
    OptionSpec{"expert_all_to_all", "bool", "true",
               "with attention DP and EP: tokens reach their experts by an all-to-all (true: DeepEP, MoRI, TensorRT-LLM's) "
               "or every EP rank all-gathers every DP group's tokens and a reduce-scatter returns the outputs (false: SGLang "
               "without --moe-a2a-backend, vLLM's allgather_reducescatter)"},
    OptionSpec{"engram_on_host", "bool", "model default",
               "Engram tables in host DRAM (true) or HBM (default: the model's engram.placement_default)"},
    OptionSpec{"overlap", "string", "none", "none | comm (collectives overlap the ops) | two_batch (MoE two-micro-batch overlap)"},
    OptionSpec{"cuda_graph", "bool", "engine default", "decode kernels replayed from CUDA/HIP graphs (graph-replay launch floor); default: true when serving.engine's model prices the host time, false with a constant serving.step_overhead"},
    OptionSpec{"ep_imbalance", "number", "1", "routing skew beyond uniform: busiest expert rank's load over the uniform-routing busiest rank, >= 1"},
    OptionSpec{"micro_batches", "integer", "1", "pipeline micro-batches per step"},
    OptionSpec{"host_prefetch", "bool", "false", "KV loads from host prefetched layer by layer"},
    OptionSpec{"engram_prefetch", "bool", "true",
               "Engram rows on host gathered from step start, overlapping the layers before each Engram layer"},
    OptionSpec{"speculative", "auto | off | map", "auto",
               "speculative decoding: the model's drafter (auto), none (off) or {draft: K, acceptance: [p1, ...]}"},
    OptionSpec{"spec_acceptance", "list of numbers", "[]", "deprecated: speculative: {acceptance: [...]}"},
    OptionSpec{"draft_schedule", "map", "{}",
               "drafts by load: {running sequences at or above: drafts, ...}, thresholds from 1, drafts 0..k "
               "(0: speculation off); below the first threshold the drafter's k. TensorRT-LLM's "
               "speculative_config draft_len_schedule and max_concurrency, vLLM's speculative_disable_by_batch_size"},
};

// `draft_schedule`: {threshold: drafts} with integer keys >= 1 and drafts >= 0, thresholds
// ascending in the file (the drafts' upper bound, the drafter's k, is checked once it is known).
std::vector<std::pair<int, int>> decode_draft_schedule(const YamlNode& v) {
  if (!v.is_map()) throw v.error("expected a map {running sequences at or above: drafts, ...}");
  std::vector<std::pair<int, int>> out;
  for (const std::string& key : v.keys()) {
    long long from = 0;
    if (const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), from);
        ec != std::errc{} || end != key.data() + key.size()) {
      from = 0;
    }
    if (from < 1 || from > 1000000) throw v.error("key '" + key + "': expected a number of running sequences in 1..1000000");
    if (!out.empty() && from <= out.back().first) {
      throw v.error("key '" + key + "': the thresholds must ascend (" + std::to_string(out.back().first) + " before it)");
    }
    const long long drafts = bounded_int(v, key, 0, 0, 16);
    out.emplace_back(static_cast<int>(from), static_cast<int>(drafts));
  }
  return out;
}

int degree(const YamlNode& dep, std::string_view key, const hw::System& system) {
  return static_cast<int>(bounded_int(dep, key, 1, 1, static_cast<long long>(system.accelerators) * serving::kMaxNodes));
}

}  // namespace

std::span<const OptionSpec> deployment_options() { return kDeploymentKeys; }

serving::SpecDecodeOptions resolve_speculative(const DeploymentConfig& d, const wl::ModelSpec& model) {
  serving::SpecDecodeOptions s;
  switch (d.spec_mode) {
    case SpecMode::kOff: return s;
    case SpecMode::kExplicit: s = d.spec; break;
    case SpecMode::kAuto:
      if (!model.speculative.present()) return s;
      s.draft_tokens = model.speculative.draft_tokens;
      s.acceptance = model.speculative.acceptance;
      s.draft_layers = model.speculative.draft_layers;
      break;
  }
  s.schedule = d.draft_schedule;
  // Drafts above the drafter's own k run k (a schedule written for a longer drafter).
  for (auto& [from, drafts] : s.schedule) drafts = std::min(drafts, s.draft_tokens);
  return s;
}

DeploymentConfig decode_deployment(const YamlNode* dep, const wl::ModelSpec& model, const hw::System& system) {
  DeploymentConfig d;
  d.plan.engram_on_host = model.engram.host_resident;
  if (dep) {
    dep->check_keys(kDeploymentKeys);
    d.plan.tp = degree(*dep, "tp", system);
    d.plan.ep = degree(*dep, "ep", system);
    d.plan.pp = degree(*dep, "pp", system);
    d.plan.attn_dp = degree(*dep, "dp", system);
    if (dep->has("redundant_experts")) {
      d.plan.redundant_experts = static_cast<int>(bounded_int(*dep, "redundant_experts", 0, 0, 65536));
    }
    if (auto v = dep->find("nodes")) {
      const long long nodes = bounded_int(*dep, "nodes", 1, 1, serving::kMaxNodes);
      const int spans = d.plan.nodes(system.accelerators);
      if (nodes != spans) {
        throw v->error("tp x dp x pp = " + std::to_string(d.plan.devices()) + " devices on " + system.name + " (" +
                       std::to_string(system.accelerators) + " per system) span " + std::to_string(spans) +
                       " system(s), not " + std::to_string(nodes) + ": expected nodes: " + std::to_string(spans) +
                       " or degrees filling " + std::to_string(nodes) + " systems");
      }
    }
    if (auto v = dep->find("engram_on_host")) d.plan.engram_on_host = v->as_bool();
    if (auto v = dep->find("expert_all_to_all")) d.plan.expert_all_to_all = v->as_bool();
    d.overlap = named_or(*dep, "overlap", d.overlap, serving::kOverlapNames);
    if (auto v = dep->find("cuda_graph")) d.cuda_graph = v->as_bool();
    if (auto v = dep->find("ep_imbalance")) {
      d.ep_imbalance = v->as_number();
      if (!(d.ep_imbalance >= 1.0 && d.ep_imbalance <= 64.0)) throw v->error("ep_imbalance must be in [1, 64]");
    }
    d.micro_batches = static_cast<int>(bounded_int(*dep, "micro_batches", 1, 1, 1024));
    if (auto v = dep->find("host_prefetch")) d.host_prefetch = v->as_bool();
    if (auto v = dep->find("engram_prefetch")) d.engram_prefetch = v->as_bool();
    if (auto v = dep->find("speculative")) {
      if (dep->has("spec_acceptance")) throw v->error("give speculative or the deprecated spec_acceptance, not both");
      if (v->is_map()) {
        const wl::SpeculativeSpec x = wl::decode_drafter(*v, false);
        d.spec_mode = SpecMode::kExplicit;
        d.spec.draft_tokens = x.draft_tokens;
        d.spec.acceptance = x.acceptance;
        d.spec.draft_layers = x.draft_layers;
      } else {
        const std::string mode = v->as_string();
        if (mode == "auto") d.spec_mode = SpecMode::kAuto;
        else if (mode == "off") d.spec_mode = SpecMode::kOff;
        else throw v->error("expected auto, off or {draft: K, acceptance: [p1, ...]}, found '" + mode + "'");
      }
    }
    if (auto v = dep->find("draft_schedule")) d.draft_schedule = decode_draft_schedule(*v);
    if (auto v = dep->find("spec_acceptance")) {  // deprecated alias: [] = off
      for (const YamlNode& x : v->items()) {
        const double p = x.as_number();
        if (!(p >= 0 && p <= 1)) throw x.error("expected a probability in [0, 1]");
        d.spec.acceptance.push_back(p);
      }
      if (d.spec.acceptance.size() > 16) throw v->error("at most 16 draft tokens");
      d.spec.draft_tokens = static_cast<int>(d.spec.acceptance.size());
      d.spec_mode = d.spec.enabled() ? SpecMode::kExplicit : SpecMode::kOff;
    }
  }
  const serving::PlanCheck check = serving::check_plan(model, system, d.plan);
  if (!check.ok) {
    if (dep) throw dep->error(check.reason);
    throw core::Error(check.reason);
  }
  return d;
}

}  // namespace agentsim::exp
