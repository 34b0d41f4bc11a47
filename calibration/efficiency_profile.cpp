#include "calibration/efficiency_profile.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::calib {
namespace {

void emit_error(YAML::Emitter& out, const char* key, const FitError& e) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "points" << YAML::Value << e.points;
  out << YAML::Key << "rms_rel_error" << YAML::Value << e.rms_rel_error;
  out << YAML::Key << "max_rel_error" << YAML::Value << e.max_rel_error;
  out << YAML::EndMap;
}

// Natural-log factors are bounded so that exp() of a table's sum stays finite
// (a fitted efficiency is within a few units of 0); other numbers must be finite.
constexpr double kMaxLog = 100;
constexpr double kMaxValue = 1e300;

// Strict reading helpers: every error names file, line and key path.
struct Reader {
  std::string path;

  core::Error error(const YAML::Node& n, const std::string& key_path, const std::string& what) const {
    return core::Error(core::SourceLocation{path, n.Mark().line >= 0 ? n.Mark().line + 1 : 0, key_path}, what);
  }

  // Every key of `allowed` is required; keys of `optional` may be absent.
  void check_keys(const YAML::Node& n, const std::string& key_path, const std::vector<std::string>& allowed,
                  const std::vector<std::string>& optional = {}) const {
    if (!n.IsMap()) throw error(n, key_path, "expected a mapping");
    std::vector<std::string> all = allowed;
    all.insert(all.end(), optional.begin(), optional.end());
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(all.begin(), all.end(), k) != all.end()) continue;
      const std::string near = core::closest_match(k, all);
      throw error(kv.first, key_path.empty() ? k : key_path + "." + k,
                  "unknown key" + (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; allowed: " + core::join_names(all));
    }
    for (const auto& k : allowed) {
      if (!n[k]) throw error(n, key_path.empty() ? k : key_path + "." + k, "missing key");
    }
  }

  template <class T>
  T get(const YAML::Node& n, const std::string& key_path, const char* what) const {
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      throw error(n, key_path, std::string("expected ") + what);
    }
  }

  // A finite number in [lo, hi] (YAML's .nan and .inf read as doubles, so they are refused here).
  double number(const YAML::Node& n, const std::string& key_path, double lo, double hi) const {
    const double v = get<double>(n, key_path, "a number");
    if (!std::isfinite(v) || v < lo || v > hi) {
      throw error(n, key_path, "expected a finite number in [" + format_bound(lo) + ", " + format_bound(hi) + "]");
    }
    return v;
  }

  std::vector<double> numbers(const YAML::Node& n, const std::string& key_path, double lo, double hi) const {
    if (!n.IsSequence() || n.size() == 0) throw error(n, key_path, "expected a non-empty list of numbers");
    std::vector<double> v;
    for (std::size_t i = 0; i < n.size(); ++i) v.push_back(number(n[i], key_path + "[" + std::to_string(i) + "]", lo, hi));
    return v;
  }

  static std::string format_bound(double b) {
    std::ostringstream o;
    o << b;
    return o.str();
  }

  FitError fit_error(const YAML::Node& n, const std::string& key_path) const {
    check_keys(n, key_path, {"points", "rms_rel_error", "max_rel_error"});
    FitError e;
    e.points = get<std::size_t>(n["points"], key_path + ".points", "a count");
    e.rms_rel_error = number(n["rms_rel_error"], key_path + ".rms_rel_error", 0, kMaxValue);
    e.max_rel_error = number(n["max_rel_error"], key_path + ".max_rel_error", 0, kMaxValue);
    return e;
  }

  Quantity quantity(const YAML::Node& n, const std::string& key_path) const {
    const std::string q = get<std::string>(n, key_path, "a string");
    for (Quantity c : {Quantity::kCompute, Quantity::kMemory, Quantity::kLatency}) {
      if (to_string(c) == q) return c;
    }
    throw error(n, key_path, "'" + q + "' is not one of compute, memory, latency");
  }

  FittedTable table(const std::string& name, const YAML::Node& n, const std::string& key_path) const {
    check_keys(n, key_path, {"family", "dtype", "quantity", "peak", "peak_source", "log_constant", "axes",
                             "fit_error", "held_out_error"},
               {"derived_from", "extended_from", "provenance", "mem_bw_Bps", "max_value", "implementation"});
    FittedTable t;
    t.name = name;
    t.family = get<std::string>(n["family"], key_path + ".family", "a string");
    try {
      kernel_family(t.family);
    } catch (const core::Error& e) {
      throw error(n["family"], key_path + ".family", e.detail());
    }
    t.dtype = get<std::string>(n["dtype"], key_path + ".dtype", "a string");
    t.quantity = quantity(n["quantity"], key_path + ".quantity");
    t.peak = number(n["peak"], key_path + ".peak", 0, kMaxValue);
    t.peak_source = get<std::string>(n["peak_source"], key_path + ".peak_source", "a string");
    t.log_constant = number(n["log_constant"], key_path + ".log_constant", -kMaxLog, kMaxLog);
    const YAML::Node axes = n["axes"];
    if (!axes.IsSequence() || axes.size() == 0) throw error(axes, key_path + ".axes", "expected a non-empty list");
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const std::string ap = key_path + ".axes[" + std::to_string(i) + "]";
      check_keys(axes[i], ap, {"name", "monotone", "knots", "log_offsets"});
      EfficiencyAxis ax;
      ax.name = get<std::string>(axes[i]["name"], ap + ".name", "a string");
      ax.monotone = get<int>(axes[i]["monotone"], ap + ".monotone", "-1, 0 or 1");
      if (ax.monotone < -1 || ax.monotone > 1) throw error(axes[i]["monotone"], ap + ".monotone", "expected -1, 0 or 1");
      ax.knots = numbers(axes[i]["knots"], ap + ".knots", 0, kMaxValue);
      ax.log_offsets = numbers(axes[i]["log_offsets"], ap + ".log_offsets", -kMaxLog, kMaxLog);
      if (ax.knots.size() != ax.log_offsets.size())
        throw error(axes[i], ap, "knots and log_offsets differ in length");
      for (std::size_t j = 0; j < ax.knots.size(); ++j) {
        if (!(ax.knots[j] > 0) || (j > 0 && !(ax.knots[j] > ax.knots[j - 1])))
          throw error(axes[i]["knots"], ap + ".knots", "knots must be positive and strictly ascending");
      }
      t.axes.push_back(std::move(ax));
    }
    t.fit_error = fit_error(n["fit_error"], key_path + ".fit_error");
    t.held_out_error = fit_error(n["held_out_error"], key_path + ".held_out_error");
    if (n["mem_bw_Bps"]) t.mem_bw_Bps = number(n["mem_bw_Bps"], key_path + ".mem_bw_Bps", 0, kMaxValue);
    if (n["max_value"]) t.max_value = number(n["max_value"], key_path + ".max_value", 0, kMaxValue);
    if (n["derived_from"]) t.derived_from = get<std::string>(n["derived_from"], key_path + ".derived_from", "a string");
    if (n["extended_from"])
      t.extended_from = get<std::string>(n["extended_from"], key_path + ".extended_from", "a string");
    if (n["provenance"]) t.provenance = get<std::string>(n["provenance"], key_path + ".provenance", "a string");
    if (n["implementation"])
      t.implementation = get<std::string>(n["implementation"], key_path + ".implementation", "a string");
    return t;
  }
};

EfficiencyProfile decode_profile(const std::string& yaml_text, const std::string& path);

}  // namespace

const FittedTable& EfficiencyProfile::table(const std::string& name) const {
  const auto it = tables.find(name);
  if (it != tables.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [k, v] : tables) names.push_back(k);
  const std::string near = core::closest_match(name, names);
  throw core::Error(core::SourceLocation{source, 0, "tables." + name},
                    "profile has no such table" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                        "; tables: " + core::join_names(names));
}

std::string to_yaml(const EfficiencyProfile& p) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << kProfileSchema;
  out << YAML::Key << "device" << YAML::Value << p.device;
  out << YAML::Key << "backend" << YAML::Value << p.backend;
  out << YAML::Key << "source" << YAML::Value << p.source;
  out << YAML::Key << "calibration_date" << YAML::Value << p.calibration_date;
  out << YAML::Key << "tables" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, t] : p.tables) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "family" << YAML::Value << t.family;
    out << YAML::Key << "dtype" << YAML::Value << t.dtype;
    out << YAML::Key << "quantity" << YAML::Value << to_string(t.quantity);
    out << YAML::Key << "peak" << YAML::Value << t.peak;
    out << YAML::Key << "peak_source" << YAML::Value << t.peak_source;
    if (t.mem_bw_Bps > 0) out << YAML::Key << "mem_bw_Bps" << YAML::Value << t.mem_bw_Bps;
    out << YAML::Key << "log_constant" << YAML::Value << t.log_constant;
    out << YAML::Key << "axes" << YAML::Value << YAML::BeginSeq;
    for (const auto& ax : t.axes) {
      out << YAML::BeginMap;
      out << YAML::Key << "name" << YAML::Value << ax.name;
      out << YAML::Key << "monotone" << YAML::Value << ax.monotone;
      out << YAML::Key << "knots" << YAML::Value << YAML::Flow << ax.knots;
      out << YAML::Key << "log_offsets" << YAML::Value << YAML::Flow << ax.log_offsets;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    if (t.max_value > 0) out << YAML::Key << "max_value" << YAML::Value << t.max_value;
    emit_error(out, "fit_error", t.fit_error);
    emit_error(out, "held_out_error", t.held_out_error);
    if (!t.derived_from.empty()) out << YAML::Key << "derived_from" << YAML::Value << t.derived_from;
    if (!t.extended_from.empty()) out << YAML::Key << "extended_from" << YAML::Value << t.extended_from;
    if (!t.provenance.empty()) out << YAML::Key << "provenance" << YAML::Value << t.provenance;
    if (!t.implementation.empty()) out << YAML::Key << "implementation" << YAML::Value << t.implementation;
    out << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

EfficiencyProfile parse_profile(const std::string& yaml_text, const std::string& path) {
  try {
    return decode_profile(yaml_text, path);
  } catch (const YAML::ParserException& e) {
    throw core::Error(core::SourceLocation{path, e.mark.line + 1, ""}, "not valid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    // Conversions the strict helpers do not wrap, e.g. a list used as a table name.
    throw core::Error(core::SourceLocation{path, e.mark.line >= 0 ? e.mark.line + 1 : 0, ""},
                      "unexpected YAML structure: " + e.msg);
  }
}

namespace {

EfficiencyProfile decode_profile(const std::string& yaml_text, const std::string& path) {
  const YAML::Node root = YAML::Load(yaml_text);
  const Reader r{path};
  r.check_keys(root, "", {"schema", "device", "backend", "source", "calibration_date", "tables"});
  const std::string schema = r.get<std::string>(root["schema"], "schema", "a string");
  if (schema != kProfileSchema) throw r.error(root["schema"], "schema", "expected '" + std::string(kProfileSchema) + "', got '" + schema + "'");
  EfficiencyProfile p;
  p.device = r.get<std::string>(root["device"], "device", "a string");
  p.backend = r.get<std::string>(root["backend"], "backend", "a string");
  p.source = r.get<std::string>(root["source"], "source", "a string");
  p.calibration_date = r.get<std::string>(root["calibration_date"], "calibration_date", "a string");
  const YAML::Node tables = root["tables"];
  if (!tables.IsMap()) throw r.error(tables, "tables", "expected a mapping of table name to table");
  for (const auto& kv : tables) {
    const std::string name = kv.first.as<std::string>();
    p.tables[name] = r.table(name, kv.second, "tables." + name);
  }
  return p;
}

}  // namespace

const FittedTable* EfficiencyProfile::launch_table(bool graph) const {
  const auto it = tables.find(graph ? "graph_replay_latency" : "launch_latency");
  return it == tables.end() ? nullptr : &it->second;
}

double EfficiencyProfile::launch_floor_s(bool graph) const {
  const FittedTable* t = launch_table(graph);
  if (t == nullptr) return 0;
  std::vector<double> shape;
  for (const EfficiencyAxis& a : t->axes) shape.push_back(a.knots.empty() ? 1.0 : a.knots.back());
  return t->lookup(shape).value;
}

EfficiencyProfile load_profile(const std::string& path) {
  std::ifstream in = core::open_input(path, "profile", std::ios::in);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_profile(ss.str(), path);
}

}  // namespace agentsim::calib
