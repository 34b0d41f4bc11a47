#include "calibration/error_bands.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "sim/core/error.hpp"
#include "sim/metrics/percentile.hpp"

namespace agentsim::calib {

std::string accelerator_generation(const hw::Accelerator& a) {
  const char* format = a.peak_flops.count(hw::DType::kFp4)   ? "fp4"
                       : a.peak_flops.count(hw::DType::kFp8) ? "fp8"
                                                             : "bf16";
  return a.vendor + "-" + format;
}

std::string regime_name(const std::string& generation, double sequences_per_replica) {
  return generation + (sequences_per_replica > kThroughputBoundSequences ? "/throughput" : "/latency");
}

std::string format_regime_name(const std::string& regime, hw::DType format, bool experts) {
  return regime + "/" + std::string(hw::to_string(format)) + (experts ? "-experts" : "-weights");
}

const Band* ErrorBands::find(const std::string& regime, std::string_view metric) const {
  const auto r = by_regime.find(regime);
  if (r == by_regime.end()) return nullptr;
  const auto m = r->second.find(std::string(metric));
  return m == r->second.end() ? nullptr : &m->second;
}

ErrorBands fit_error_bands(const std::vector<Residual>& residuals, int min_rows, std::string provenance) {
  std::map<std::string, std::map<std::string, std::vector<double>>> samples;
  for (const Residual& r : residuals) {
    if (std::isfinite(r.error)) samples[r.regime][r.metric].push_back(r.error);
  }
  ErrorBands out;
  out.provenance = std::move(provenance);
  for (auto& [regime, metrics] : samples) {
    for (auto& [metric, errors] : metrics) {
      if (static_cast<int>(errors.size()) < min_rows) continue;
      Band b;
      b.rows = static_cast<int>(errors.size());
      b.err_p10 = metrics::percentile(errors, 10);
      b.err_p90 = metrics::percentile(errors, 90);
      out.by_regime[regime][metric] = b;
    }
  }
  return out;
}

std::string error_bands_yaml(const ErrorBands& b) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "provenance" << YAML::Value << b.provenance;
  out << YAML::Key << "throughput_bound_sequences" << YAML::Value << kThroughputBoundSequences;
  out << YAML::Key << "regimes" << YAML::Value << YAML::BeginMap;
  for (const auto& [regime, metrics] : b.by_regime) {
    out << YAML::Key << regime << YAML::Value << YAML::BeginMap;
    for (const auto& [metric, band] : metrics) {
      out << YAML::Key << metric << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "rows" << YAML::Value << band.rows;
      out << YAML::Key << "err_p10" << YAML::Value << band.err_p10;
      out << YAML::Key << "err_p90" << YAML::Value << band.err_p90;
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

ErrorBands load_error_bands(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::Error(core::SourceLocation{path, 0, ""}, "cannot read the error bands file");
  const auto fail = [&](const YAML::Node& n, const std::string& key, const std::string& what) {
    return core::Error(core::SourceLocation{path, n.Mark().line >= 0 ? n.Mark().line + 1 : 0, key}, what);
  };
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw core::Error(core::SourceLocation{path, e.mark.line + 1, ""}, "not YAML: " + e.msg);
  }
  if (!root.IsMap()) throw fail(root, "", "expected a map with provenance, throughput_bound_sequences and regimes");
  ErrorBands out;
  if (root["provenance"]) out.provenance = root["provenance"].as<std::string>("");
  const YAML::Node t = root["throughput_bound_sequences"];
  if (!t || t.as<double>(-1) != kThroughputBoundSequences) {
    std::ostringstream want;
    want << kThroughputBoundSequences;
    throw fail(t ? t : root, "throughput_bound_sequences", "expected " + want.str() + " (the bands' batch regimes)");
  }
  const YAML::Node regimes = root["regimes"];
  if (!regimes || !regimes.IsMap()) throw fail(root, "regimes", "expected a map of regime -> metric -> band");
  for (const auto& r : regimes) {
    const std::string regime = r.first.as<std::string>("");
    if (!r.second.IsMap()) throw fail(r.second, "regimes." + regime, "expected a map of metric -> band");
    for (const auto& m : r.second) {
      const std::string metric = m.first.as<std::string>("");
      const std::string key = "regimes." + regime + "." + metric;
      Band b;
      const YAML::Node& n = m.second;
      const double nan = std::nan("");
      b.rows = n["rows"] ? n["rows"].as<int>(0) : 0;
      b.err_p10 = n["err_p10"] ? n["err_p10"].as<double>(nan) : nan;
      b.err_p90 = n["err_p90"] ? n["err_p90"].as<double>(nan) : nan;
      if (!n.IsMap() || b.rows < 1 || !(b.err_p10 > -1) || !(b.err_p90 >= b.err_p10)) {
        throw fail(n, key, "expected {rows: N >= 1, err_p10: > -1, err_p90: >= err_p10}");
      }
      out.by_regime[regime][metric] = b;
    }
  }
  return out;
}

}  // namespace agentsim::calib
