#pragma once
// An efficiency profile: the fitted tables of one device, written as YAML
// (schema "agentsim-efficiency-profile/1", documented in docs/calibration.md)
// and named by a hardware catalog entry; the step cost model only looks up.
#include <map>
#include <string>

#include "calibration/fitted_table.hpp"

namespace agentsim::calib {

inline constexpr const char* kProfileSchema = "agentsim-efficiency-profile/1";

struct EfficiencyProfile {
  std::string device;            // from the calibration file
  std::string backend;           // "cpu" | "cuda"
  std::string source;            // calibration file it was fitted from
  std::string calibration_date;  // the calibration file's date attribute
  std::map<std::string, FittedTable> tables;  // by table name, e.g. "gemm_fp32"

  // The named table; throws core::Error listing the profile's tables.
  const FittedTable& table(const std::string& name) const;
  // The launch_latency (graph: graph_replay_latency) table, or null where the profile has none.
  const FittedTable* launch_table(bool graph) const;
  // Seconds a kernel costs at least: that table at its largest measured kernel count (the
  // steady state); 0 without the table.
  double launch_floor_s(bool graph) const;
};

// YAML text of the profile (doubles round-trip exactly).
std::string to_yaml(const EfficiencyProfile& p);
// Strict decoding: unknown or missing keys are errors carrying file, line and key path.
EfficiencyProfile parse_profile(const std::string& yaml_text, const std::string& path);
EfficiencyProfile load_profile(const std::string& path);

}  // namespace agentsim::calib
