#include "experiments/config/experiment.hpp"

#include <cctype>
#include "experiments/config/deployment_name.hpp"
#include "experiments/run/prediction_bands.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "experiments/config/catalog.hpp"
#include "sim/core/decode_helpers.hpp"
#include "experiments/config/what_if.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;
using core::OptionSpec;
using core::YamlNode;

namespace {

constexpr std::array kTopKeys = {
    OptionSpec{"name", "string", "", "experiment name"},
    OptionSpec{"seed", "integer", "1", "master seed; each run's seed derives from it and the run's load level"},
    OptionSpec{"model", "string", "", "model catalog name"},
    OptionSpec{"system", "string", "", "one system catalog name (or use systems)"},
    OptionSpec{"systems", "list of strings", "", "system catalog names, one curve each"},
    OptionSpec{"deployment", "map", "{}", "parallel layout (see `describe deployment`)"},
    OptionSpec{"search", "map of lists or auto", "",
               "deployment search space: deployment option -> candidate values; auto: tp, ep and attention-dp "
               "degrees up to the system, ranked by an analytic bound, the best few simulated"},
    OptionSpec{"serving", "map", "{}", "engine options (see `describe serving`)"},
    OptionSpec{"workload", "map", "", "sessions and replay (see `describe workload`)"},
    OptionSpec{"readoffs", "map", "{agent_speeds: [100]}", "read-off targets (see `describe readoffs`)"},
    OptionSpec{"slo", "map", "", "SLO tiers for max agents per MW (see `describe slo`)"},
    OptionSpec{"power", "map", "{}", "power accounting (see `describe power`)"},
    OptionSpec{"record", "map", "{}", "per-request/per-step tables kept for results.h5"},
    OptionSpec{"what_if", "map", "", "overrides of catalog fields (see `describe what_if`)"},
    OptionSpec{"error_bands", "path", calib::kShippedErrorBandsPath,
               "error bands for the headline figures (agentsim validate --cv --bands FILE), relative to this file; "
               "default: the shipped ones"},
    OptionSpec{"limits", "map", "{}", "resource limits checked before simulating (see `describe limits`)"},
};
constexpr std::array kLimitsKeys = {
    OptionSpec{"memory", "bytes", "none",
               "fail before simulating when the estimated peak memory exceeds this (or the machine's memory)"},
};
constexpr std::array kReadoffKeys = {
    OptionSpec{"agent_speeds", "list of numbers (tok/s)", "[100]",
               "per-agent p50 output speeds at which tokens/s per MW is read off the curve"},
};
constexpr std::array kSloKeys = {
    OptionSpec{"tiers", "list of numbers (tok/s)", "", "per-agent output speeds, one SLO each"},
    OptionSpec{"speed_percentile", "integer", "10", "percentile of requests that must reach the tier speed: 10 or 50"},
    OptionSpec{"ttft", "time", "none", "TTFT limit at ttft_percentile (a time > 0; absent: no limit)"},
    OptionSpec{"ttft_percentile", "integer", "90", "TTFT percentile held to the limit: 50, 90 or 99"},
};
constexpr std::array kPowerKeys = {
    OptionSpec{"pue", "number", "1.0", "facility power / IT power (>= 1); per-MW figures divide facility power"},
    OptionSpec{"host_cpu_load", "number", "0.5", "fraction of host CPU TDP drawn while serving"},
};
constexpr std::array kRecordKeys = {
    OptionSpec{"requests", "bool", "true", "keep the per-request table of each run in results.h5"},
    OptionSpec{"steps", "bool", "true", "keep the per-step table of each run in results.h5"},
};

YAML::Node parse_raw(const std::string& text, const std::string& path) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) throw core::Error(core::SourceLocation{path, 1, ""}, "expected a YAML mapping at the top level");
    return root;
  } catch (const YAML::Exception& e) {
    throw core::Error(core::SourceLocation{path, e.mark.line + 1, ""}, "YAML syntax error: " + e.msg);
  }
}

// "a.b.c" -> {"a", "b", "c"} (an empty part stays, for the caller to refuse).
std::vector<std::string> key_path_parts(const std::string& key_path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = key_path.find('.', start);
    parts.push_back(key_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// "a.b.c=value": sets a.b.c (creating maps on the way) to value parsed as YAML.
void apply_set(const YAML::Node& root, const std::string& set) {
  const core::SourceLocation where{"--set", 0, set};
  const auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0) throw core::Error(where, "expected PATH=VALUE, e.g. workload.window=300s");
  const std::string key_path = set.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(set.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw core::Error(where, "value is not valid YAML: " + e.msg);
  }
  std::vector<std::string> keys = key_path_parts(key_path);
  // Catalog entry names hold dots before digits (llama-3.1-8b, deepseek-v4.1-flash) and catalog
  // fields never start with one: under what_if such a part continues the entry's name.
  if (!keys.empty() && keys.front() == "what_if") {
    for (std::size_t i = 2; i < keys.size();) {
      if (!keys[i].empty() && std::isdigit(static_cast<unsigned char>(keys[i].front())) && !keys[i - 1].empty()) {
        keys[i - 1] += "." + keys[i];
        keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
  YAML::Node cur = root;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = keys[i];
    if (key.empty()) throw core::Error(where, "empty key in path '" + key_path + "'");
    if (i + 1 == keys.size()) {
      cur[key] = value;
      return;
    }
    if (!cur[key].IsDefined() || cur[key].IsNull()) cur[key] = YAML::Node(YAML::NodeType::Map);
    if (!cur[key].IsMap()) throw core::Error(where, "'" + key + "' is not a mapping");
    YAML::Node next = cur[key];
    cur.reset(next);
  }
}

std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << n;
  return out.c_str();
}

// One plan of one system from a deployment node; an invalid one is kept, pruned with the decoder's
// reason (or, when `strict`, is an input error).
void add_plan(Experiment& e, int system_index, const YAML::Node& node, const YamlNode* dep, bool searched,
              bool strict) {
  const hw::System& sys = e.systems[static_cast<std::size_t>(system_index)];
  Plan p;
  p.system = system_index;
  for (const auto& kv : node) {
    if (!p.label.empty()) p.label += ",";
    p.label += kv.first.as<std::string>() + "=" + scalar_text(kv.second);
  }
  if (p.label.empty()) p.label = "default";
  // Without a search the original node decodes, so errors keep their line numbers.
  const YamlNode dn = !searched && dep ? *dep : YamlNode(node, dep ? dep->file() : e.file, "deployment");
  try {
    p.deployment = decode_deployment(node.size() > 0 ? &dn : nullptr, e.model, sys);
  } catch (const core::Error& err) {
    if (strict && node.size() == 0) {
      throw core::Error(core::SourceLocation{e.file, 0, "deployment"},
                        err.detail() + " (no deployment section, so the default plan applies)");
    }
    if (strict) throw;
    // The merged plan has no line of its own: name the key, not a misleading line.
    p.pruned = core::format_error(core::SourceLocation{"", 0, err.where().key_path}, err.detail());
  }
  e.plans.push_back(p);
}

// Plans of one system: the fixed deployment, or every combination of the search lists
// merged into it. Invalid combinations are kept, pruned with the decoder's reason.
void add_plans(Experiment& e, int system_index, const YamlNode* dep, const std::optional<YamlNode>& search,
               bool strict) {
  YAML::Node base = YAML::Node(YAML::NodeType::Map);
  if (dep) base = YAML::Clone(dep->raw());
  std::vector<std::string> keys;
  std::vector<std::vector<YAML::Node>> values;
  if (search) {
    for (const auto& k : search->keys()) {
      keys.push_back(k);
      values.emplace_back();
      for (const auto& item : search->at(k).items()) values.back().push_back(item.raw());
    }
  }
  std::vector<std::size_t> idx(keys.size(), 0);
  while (true) {
    YAML::Node node = YAML::Clone(base);
    for (std::size_t i = 0; i < keys.size(); ++i) node[keys[i]] = YAML::Clone(values[i][idx[i]]);
    add_plan(e, system_index, node, dep, !keys.empty(), strict);
    // Odometer over the search lists, last key fastest.
    std::size_t k = keys.size();
    while (k > 0) {
      --k;
      if (++idx[k] < values[k].size()) break;
      idx[k] = 0;
      if (k == 0) return;
    }
    if (keys.empty()) return;
  }
}

// search: auto. Degrees t = 1, 2, 4, ... up to the system's GPUs, and the GPU count itself (an NVL72
// rack: 1 .. 64 and 72; a width that does not divide the GPUs idles the rest, named in the read-off):
// tensor parallel {tp: t}; for MoE models also expert parallel over the TP group {tp: t, ep: t} and
// attention data parallel with expert parallel {dp: t, ep: t} (EP need not divide the routed experts:
// redundant experts fill the ranks). When no plan fits one system, replicas over 2 and 4 whole systems
// joined by their NICs: {tp: t}, {tp: g, pp: n} with n micro-batches, and for MoE {dp: t, ep: t},
// {tp: g, dp: n, ep: t} and {tp: g, ep: g, pp: n} (g GPUs a system, n systems, t = n g). Each merged
// into the deployment section's other keys; the decoder prunes what cannot run (heads, memory) with
// the reason.
void add_auto_plans(Experiment& e, int system_index, const YamlNode* dep) {
  const int gpus = e.systems[static_cast<std::size_t>(system_index)].accelerators;
  std::vector<int> degrees;
  for (int t = 1; t <= gpus; t *= 2) degrees.push_back(t);
  if (degrees.back() != gpus) degrees.push_back(gpus);
  const bool moe = e.model.ffn.experts > 0;
  using Shape = std::vector<std::pair<const char*, int>>;
  const auto add_shape = [&](const Shape& shape) {
    YAML::Node node = YAML::Node(YAML::NodeType::Map);
    for (const auto& [k, v] : shape) node[k] = v;
    if (dep) {
      for (const auto& kv : dep->raw()) {
        const std::string key = kv.first.as<std::string>();
        if (key == "tp" || key == "ep" || key == "dp" || key == "pp" || key == "nodes") continue;
        const bool own = std::any_of(shape.begin(), shape.end(), [&](const auto& kv2) { return key == kv2.first; });
        if (!own) node[key] = YAML::Clone(kv.second);  // else the shape's own (micro_batches of a pipeline)
      }
    }
    add_plan(e, system_index, node, dep, true, false);
  };
  const std::size_t first = e.plans.size();
  for (int t : degrees) {
    add_shape({{"tp", t}});
    if (moe && t > 1) {
      add_shape({{"tp", t}, {"ep", t}});
      add_shape({{"dp", t}, {"ep", t}});
    }
  }
  const bool fits = std::any_of(e.plans.begin() + static_cast<std::ptrdiff_t>(first), e.plans.end(),
                                [](const Plan& p) { return p.pruned.empty(); });
  if (fits) return;
  for (int n : {2, 4}) {
    const int t = n * gpus;
    add_shape({{"tp", t}});
    add_shape({{"tp", gpus}, {"pp", n}, {"micro_batches", n}});
    if (moe) {
      add_shape({{"dp", t}, {"ep", t}});
      add_shape({{"tp", gpus}, {"dp", n}, {"ep", t}});
      add_shape({{"tp", gpus}, {"ep", gpus}, {"pp", n}, {"micro_batches", n}});
    }
  }
}

int percentile_option(const YamlNode& n, std::string_view key, int fallback, std::initializer_list<int> valid) {
  if (!n.has(key)) return fallback;
  const YamlNode v = n.at(key);
  const long long p = v.as_integer();
  for (int ok : valid) {
    if (p == ok) return ok;
  }
  std::string list;
  for (int ok : valid) list += (list.empty() ? "" : ", ") + std::to_string(ok);
  throw v.error("expected one of " + list);
}

}  // namespace

std::span<const OptionSpec> experiment_options() { return kTopKeys; }
std::span<const OptionSpec> slo_options() { return kSloKeys; }
std::span<const OptionSpec> readoff_options() { return kReadoffKeys; }
std::span<const OptionSpec> power_options() { return kPowerKeys; }
std::span<const OptionSpec> record_options() { return kRecordKeys; }
std::span<const OptionSpec> limits_options() { return kLimitsKeys; }

namespace {

// Whether the file itself has the map key path "a.b.c" (no list indices).
bool file_has(const YAML::Node& file_root, const std::string& key_path) {
  YAML::Node cur = file_root;
  for (const std::string& key : key_path_parts(key_path)) {
    if (!cur.IsMap() || !cur[key].IsDefined()) return false;
    YAML::Node next = cur[key];
    cur.reset(next);
  }
  return true;
}

// The --set an error at `key_path` belongs to: one that set that path or a parent of it, or one
// that created it on the way to a deeper key (`--set a.b.c=1` with no `a` in the file: "a: unknown key").
const std::string* set_owning(const std::vector<std::string>& sets, const std::string& key_path,
                              const YAML::Node& file_root) {
  const std::string* found = nullptr;
  for (const auto& s : sets) {
    const std::string path = s.substr(0, s.find('='));
    const bool owns = key_path.rfind(path, 0) == 0 &&
                      (key_path.size() == path.size() || key_path[path.size()] == '.' || key_path[path.size()] == '[');
    const bool created = !key_path.empty() && path.size() > key_path.size() && path.rfind(key_path, 0) == 0 &&
                         path[key_path.size()] == '.' && !file_has(file_root, key_path);
    if (owns || created) found = &s;  // the last --set of a path wins, as when applied
  }
  return found;
}

Experiment decode_document(const YAML::Node& raw, const std::string& path, const std::string& root, const Catalog* catalog_in);

}  // namespace

Experiment load_experiment(const std::string& path, const std::string& root, const std::vector<std::string>& sets) {
  std::ifstream in = core::open_input(path, "file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_experiment(text.str(), path, root, nullptr, sets);
}

namespace {

Experiment decode_experiment(const std::string& text, const std::string& path, const std::string& root,
                              const Catalog* catalog_in, const std::vector<std::string>& sets) {
  YAML::Node raw = parse_raw(text, path);
  const YAML::Node file_root = sets.empty() ? raw : YAML::Clone(raw);
  for (const auto& s : sets) apply_set(raw, s);
  try {
    return decode_document(raw, path, root, catalog_in);
  } catch (const core::Error& e) {
    // A value given with --set has no line in the file: name the option instead.
    const std::string* s = e.where().file == path ? set_owning(sets, e.where().key_path, file_root) : nullptr;
    if (!s) throw;
    throw core::Error(core::SourceLocation{"--set " + *s, 0, e.where().key_path}, e.detail());
  }
}

Experiment decode_document(const YAML::Node& raw, const std::string& path, const std::string& root, const Catalog* catalog_in) {
  const YamlNode doc(raw, path, "");
  doc.check_keys(kTopKeys);
  // Loaded only once the top level is known to be sane, so a typo is reported before catalog trouble.
  Catalog catalog = catalog_in ? *catalog_in : load_catalog(root);

  Experiment e;
  e.file = path;
  e.root = root;
  if (auto bands = doc.find("error_bands")) {
    fs::path bp = bands->as_string();
    if (bp.is_relative()) bp = fs::path(path).parent_path() / bp;
    if (!fs::is_regular_file(bp)) {
      throw bands->error("error-bands file not found: " + bp.lexically_normal().string() +
                         " (write one with agentsim validate ... --cv --bands FILE)");
    }
    e.error_bands = std::make_shared<const calib::ErrorBands>(calib::load_error_bands(bp.lexically_normal().string()));
    e.error_bands_file = bands->as_string();
  } else {
    e.error_bands = load_shipped_error_bands(root);
  }
  {
    YAML::Emitter out;
    out << raw;
    e.resolved_yaml = out.c_str();
  }
  e.name = doc.at("name").as_string();
  e.seed = static_cast<std::uint64_t>(bounded_int(doc, "seed", 1, 0, INT64_MAX));
  if (auto wi = doc.find("what_if")) apply_what_if(*wi, root, catalog);
  const YamlNode model = doc.at("model");
  e.model = catalog.models.get(model.as_string(), model.where());

  if (doc.has("system") == doc.has("systems")) {
    throw doc.error(doc.has("system") ? "give either system or systems, not both"
                                      : "missing key 'system' (or 'systems')");
  }
  if (auto one = doc.find("system")) {
    e.systems.push_back(catalog.systems.get(one->as_string(), one->where()));
  } else {
    const YamlNode list = doc.at("systems");
    for (const auto& item : list.items()) {
      const std::string name = item.as_string();
      for (const auto& s : e.systems) {
        if (s.name == name) throw item.error("system '" + name + "' listed twice");
      }
      e.systems.push_back(catalog.systems.get(name, item.where()));
    }
    if (e.systems.empty()) throw list.error("expected at least one system");
  }

  const auto dep = doc.find("deployment");
  auto search = doc.find("search");
  e.search_auto = search && !search->is_map() && !search->is_sequence() && search->as_string() == "auto";
  if (search && !e.search_auto && !search->is_map()) throw search->error("expected auto or a map of candidate lists");
  if (e.search_auto) search.reset();
  if (search) {
    search->check_keys(deployment_options());
    for (const auto& k : search->keys()) {
      const YamlNode list = search->at(k);
      if (!list.is_sequence() || list.items().empty()) throw list.error("expected a non-empty list of candidate values");
      std::vector<std::string> seen;
      for (const auto& item : list.items()) {
        const std::string text = scalar_text(item.raw());
        if (std::find(seen.begin(), seen.end(), text) != seen.end()) {
          throw item.error("candidate " + text + " listed twice: expected distinct values (each names one plan)");
        }
        seen.push_back(text);
      }
    }
  }
  // A single fixed plan keeps the skeleton's behaviour: an invalid deployment is an input error.
  const bool strict = e.systems.size() == 1 && !search && !e.search_auto;
  for (std::size_t i = 0; i < e.systems.size(); ++i) {
    if (e.search_auto) {
      add_auto_plans(e, static_cast<int>(i), dep ? &*dep : nullptr);
    } else {
      add_plans(e, static_cast<int>(i), dep ? &*dep : nullptr, search, strict);
    }
  }
  bool any_valid = false;
  for (const auto& p : e.plans) any_valid = any_valid || p.pruned.empty();
  if (!any_valid) throw core::Error(e.plans.front().pruned);

  const auto srv = doc.find("serving");
  e.serving = decode_serving(srv ? &*srv : nullptr);
  e.serving.engine_overhead = catalog.engine(e.serving.engine);
  check_split_fits(e);
  e.workload = decode_workload(doc.at("workload"), path);
  if (e.serving.pods != 1 && e.workload.mode == ReplayMode::kOpenLoop) {
    throw srv->at("pods").error("expected pods: 1 with an open-loop workload (it replays the recorded timeline "
                                "whole); pods split closed-loop agents or poisson session rates");
  }

  e.readoff_speeds_tok_s = {100.0};
  if (auto ro = doc.find("readoffs")) {
    ro->check_keys(kReadoffKeys);
    if (ro->has("agent_speeds")) e.readoff_speeds_tok_s = positive_list(ro->at("agent_speeds"));
  }
  if (auto slo = doc.find("slo")) {
    slo->check_keys(kSloKeys);
    SloTier base;
    base.speed_percentile = percentile_option(*slo, "speed_percentile", 10, {10, 50});
    base.ttft_percentile = percentile_option(*slo, "ttft_percentile", 90, {50, 90, 99});
    // Absent: no TTFT limit. Present: a limit > 0 (0 would read as absent).
    if (slo->has("ttft")) base.ttft_s = core::positive(slo->at("ttft"), core::Dimension::kTime);
    for (double t : positive_list(slo->at("tiers"))) {
      SloTier tier = base;
      tier.agent_tok_s = t;
      e.slo_tiers.push_back(tier);
    }
  }
  if (auto pw = doc.find("power")) {
    pw->check_keys(kPowerKeys);
    e.power.pue = pw->number_or("pue", 1.0);
    if (!(e.power.pue >= 1.0 && e.power.pue <= 3.0)) throw pw->at("pue").error("expected a PUE in [1, 3]");
    e.power.host_cpu_load = fraction(*pw, "host_cpu_load", 0.5);
  }
  if (auto rec = doc.find("record")) {
    rec->check_keys(kRecordKeys);
    if (rec->has("requests")) e.record_requests = rec->at("requests").as_bool();
    if (rec->has("steps")) e.record_steps = rec->at("steps").as_bool();
  }
  if (auto lim = doc.find("limits")) {
    lim->check_keys(kLimitsKeys);
    if (lim->has("memory")) {
      e.memory_limit_bytes = lim->at("memory").as_quantity(core::Dimension::kBytes);
      if (!(e.memory_limit_bytes > 0)) throw lim->at("memory").error("expected a positive size, e.g. \"16GB\"");
    }
  }
  return e;
}

}  // namespace

Experiment parse_experiment(const std::string& text, const std::string& path, const std::string& root,
                            const Catalog* catalog, const std::vector<std::string>& sets) {
  try {
    return decode_experiment(text, path, root, catalog, sets);
  } catch (const YAML::Exception& e) {
    // A backstop for yaml-cpp conversions the strict accessors do not wrap (e.g. a list used as a key).
    throw core::Error(core::SourceLocation{path, e.mark.line >= 0 ? e.mark.line + 1 : 0, ""},
                      "unexpected YAML structure: " + e.msg);
  }
}

}  // namespace agentsim::exp
