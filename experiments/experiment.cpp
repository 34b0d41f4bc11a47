#include "experiments/experiment.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "experiments/catalog.hpp"
#include "experiments/generator_yaml.hpp"
#include "experiments/yaml_node.hpp"
#include "sim/core/suggest.hpp"
#include "workloads/trace_formats.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;
using core::Dimension;

namespace {

constexpr std::array kTopKeys = {
    OptionSpec{"name", "string", "", "experiment name"},
    OptionSpec{"seed", "integer", "1", "master seed; every random stream derives from it"},
    OptionSpec{"model", "string", "", "model catalog name"},
    OptionSpec{"system", "string", "", "system catalog name"},
    OptionSpec{"deployment", "map", "", "parallel layout"},
    OptionSpec{"serving", "map", "", "engine options"},
    OptionSpec{"workload", "map", "", "sessions and replay"},
};
constexpr std::array kDeploymentKeys = {
    OptionSpec{"tp", "integer", "1", "tensor-parallel degree (devices per replica)"},
};
constexpr std::array kServingKeys = {
    OptionSpec{"max_batch_tokens", "integer", "8192", "new tokens per step (decode + prefill chunks)"},
    OptionSpec{"max_sequences", "integer", "256", "sequences in the running batch"},
    OptionSpec{"step_overhead", "time", "0s", "fixed scheduler and launch time per step"},
    OptionSpec{"memory_fraction", "number", "0.9", "share of HBM for weights + KV cache"},
    OptionSpec{"efficiency", "map", "", "achieved fractions of peak until calibration"},
};
constexpr std::array kEfficiencyKeys = {
    OptionSpec{"compute", "number", "1.0", "achieved / peak FLOP/s"},
    OptionSpec{"memory", "number", "1.0", "achieved / peak HBM bandwidth"},
    OptionSpec{"network", "number", "1.0", "achieved / peak scale-up bandwidth"},
};
constexpr std::array kWorkloadKeys = {
    OptionSpec{"trace", "path", "", "session trace, relative to this file (or use generator)"},
    OptionSpec{"format", "string", "detected", "trace format: agentsim, azure, claude-code-csv, claude-code-json, mooncake"},
    OptionSpec{"concurrency", "list of integers", "", "closed-loop agents, one run each"},
    OptionSpec{"warmup", "time", "", "excluded from the metrics"},
    OptionSpec{"window", "time", "", "measurement window after warm-up"},
    OptionSpec{"start_spread", "time", "0s", "agents start uniformly within this time"},
    OptionSpec{"mode", "string", "closed-loop", "replay mode: closed-loop, open-loop, poisson"},
    OptionSpec{"session_rates", "list of numbers", "", "poisson: session arrivals per second, one run each"},
    OptionSpec{"time_scales", "list of numbers", "[1]", "open-loop: recorded times x scale, one run each"},
    OptionSpec{"random_start", "bool", "false", "closed-loop: first sessions start at a random turn"},
    OptionSpec{"human_gap_cap", "time", "", "cap on human (end_turn) gaps; absent = as recorded"},
    OptionSpec{"generator", "path or map", "", "synthetic generator config (YAML file or inline)"},
    OptionSpec{"sessions", "integer", "1000", "sessions drawn from the generator"},
};

std::vector<double> positive_list(const YamlNode& n) {
  std::vector<double> v;
  for (const auto& item : n.items()) {
    const double x = item.as_number();
    if (!(x > 0)) throw item.error("expected a positive number");
    v.push_back(x);
  }
  if (v.empty()) throw n.error("expected at least one value");
  return v;
}

double fraction(const YamlNode& parent, std::string_view key, double fallback) {
  if (!parent.has(key)) return fallback;
  const YamlNode n = parent.at(key);
  const double v = n.as_number();
  if (!(v > 0 && v <= 1)) throw n.error("expected a number in (0, 1]");
  return v;
}

long long bounded_int(const YamlNode& parent, std::string_view key, long long fallback, long long lo,
                      long long hi) {
  if (!parent.has(key)) return fallback;
  const YamlNode n = parent.at(key);
  const long long v = n.as_integer();
  if (v < lo || v > hi) {
    throw n.error("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

}  // namespace

Experiment load_experiment(const std::string& path, const std::string& root) {
  const YamlNode doc = YamlNode::load_file(path);
  doc.check_keys(kTopKeys);
  const Catalog catalog = load_catalog(root);

  Experiment e;
  e.file = path;
  e.name = doc.at("name").as_string();
  e.seed = static_cast<std::uint64_t>(bounded_int(doc, "seed", 1, 0, INT64_MAX));
  const YamlNode model = doc.at("model");
  e.model = catalog.models.get(model.as_string(), model.where());
  const YamlNode system = doc.at("system");
  e.system = catalog.systems.get(system.as_string(), system.where());

  if (auto dep = doc.find("deployment")) {
    dep->check_keys(kDeploymentKeys);
    e.serving.tp = static_cast<int>(bounded_int(*dep, "tp", 1, 1, e.system.accelerators));
    if (e.model.kv_heads % e.serving.tp != 0 && e.serving.tp % e.model.kv_heads != 0) {
      throw dep->at("tp").error("tp must divide or be a multiple of the model's " +
                                std::to_string(e.model.kv_heads) + " KV heads");
    }
  }
  if (auto srv = doc.find("serving")) {
    srv->check_keys(kServingKeys);
    e.serving.max_batch_tokens = bounded_int(*srv, "max_batch_tokens", 8192, 1, 1 << 24);
    e.serving.max_sequences = static_cast<int>(bounded_int(*srv, "max_sequences", 256, 1, 1 << 20));
    e.serving.step_overhead_s = srv->quantity_or("step_overhead", Dimension::kTime, 0.0);
    e.serving.memory_fraction = fraction(*srv, "memory_fraction", 0.9);
    if (auto eff = srv->find("efficiency")) {
      eff->check_keys(kEfficiencyKeys);
      e.serving.efficiency.compute = fraction(*eff, "compute", 1.0);
      e.serving.efficiency.memory = fraction(*eff, "memory", 1.0);
      e.serving.efficiency.network = fraction(*eff, "network", 1.0);
    }
  }

  const YamlNode wl = doc.at("workload");
  wl.check_keys(kWorkloadKeys);
  if (auto gen = wl.find("generator")) {
    if (wl.has("trace")) throw gen->error("give either trace or generator, not both");
    e.workload.use_generator = true;
    if (gen->is_map()) {
      e.workload.generator = decode_generator(*gen);
    } else {
      fs::path gp = gen->as_string();
      if (gp.is_relative()) gp = fs::path(path).parent_path() / gp;
      if (!fs::is_regular_file(gp)) throw gen->error("generator file not found: " + gp.lexically_normal().string());
      e.workload.generator = load_generator_yaml(gp.lexically_normal().string());
    }
    e.workload.generated_sessions = static_cast<int>(bounded_int(wl, "sessions", 1000, 1, 10'000'000));
  } else {
    const YamlNode trace = wl.at("trace");
    fs::path tp = trace.as_string();
    if (tp.is_relative()) tp = fs::path(path).parent_path() / tp;
    e.workload.trace_path = tp.lexically_normal().string();
    if (!fs::is_regular_file(e.workload.trace_path) && !fs::is_directory(e.workload.trace_path)) {
      throw trace.error("trace file not found: " + e.workload.trace_path);
    }
  }
  e.workload.format = wl.string_or("format", "");
  if (!e.workload.format.empty()) {
    const auto& names = wl::trace_format_names();
    if (std::find(names.begin(), names.end(), e.workload.format) == names.end()) {
      throw wl.at("format").error("unknown trace format '" + e.workload.format +
                                  "'; valid: " + core::join_names(names));
    }
  }
  const std::string mode = wl.string_or("mode", "closed-loop");
  if (mode == "closed-loop") {
    e.workload.mode = ReplayMode::kClosedLoop;
    const YamlNode conc = wl.at("concurrency");
    for (const auto& item : conc.items()) {
      const long long c = item.as_integer();
      if (c < 1 || c > 10'000'000) throw item.error("expected a concurrency in [1, 10000000]");
      e.workload.concurrency.push_back(static_cast<int>(c));
      e.workload.levels.push_back(static_cast<double>(c));
    }
    if (e.workload.concurrency.empty()) throw conc.error("expected at least one concurrency level");
  } else if (mode == "open-loop") {
    e.workload.mode = ReplayMode::kOpenLoop;
    e.workload.levels = wl.has("time_scales") ? positive_list(wl.at("time_scales")) : std::vector<double>{1.0};
  } else if (mode == "poisson") {
    e.workload.mode = ReplayMode::kPoisson;
    e.workload.levels = positive_list(wl.at("session_rates"));
  } else {
    throw wl.at("mode").error("unknown replay mode '" + mode + "'; valid: closed-loop, open-loop, poisson");
  }
  if (wl.has("random_start")) e.workload.random_start = wl.at("random_start").as_bool();
  e.workload.human_gap_cap_s = wl.quantity_or("human_gap_cap", Dimension::kTime, -1.0);
  e.workload.warmup_s = wl.at("warmup").as_quantity(Dimension::kTime);
  e.workload.window_s = wl.at("window").as_quantity(Dimension::kTime);
  if (!(e.workload.window_s > 0)) throw wl.at("window").error("expected a positive window");
  e.workload.start_spread_s = wl.quantity_or("start_spread", Dimension::kTime, 0.0);
  return e;
}

}  // namespace agentsim::exp
