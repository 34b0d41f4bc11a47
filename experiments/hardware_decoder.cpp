#include <array>

#include "experiments/catalog.hpp"
#include "experiments/decode_helpers.hpp"
#include "experiments/yaml_node.hpp"

namespace agentsim::exp {
using core::Dimension;

namespace {

constexpr std::array kAcceleratorKeys = {
    OptionSpec{"name", "string", "", "catalog name"},
    OptionSpec{"display_name", "string", "", "human-readable name"},
    OptionSpec{"vendor", "string", "", "nvidia | amd"},
    OptionSpec{"peak_flops", "map dtype -> FLOP rate", "", "dense tensor peaks (never sparse)"},
    OptionSpec{"hbm_capacity", "bytes", "", "HBM capacity"},
    OptionSpec{"hbm_bandwidth", "bandwidth", "", "HBM bandwidth"},
    OptionSpec{"l2_cache", "bytes", "0B", "last-level on-chip cache"},
    OptionSpec{"launch_floor", "time", "", "minimum time of one kernel launch"},
    OptionSpec{"tdp", "power", "", "board power limit"},
    OptionSpec{"idle_power", "power", "", "power with nothing running"},
    OptionSpec{"decode_power_fraction", "number", "", "fraction of (TDP - idle) drawn by memory-bound decode"},
    OptionSpec{"scale_up_bandwidth_per_direction", "bandwidth", "", "scale-up link bandwidth per GPU per direction"},
    OptionSpec{"scale_up_latency", "time", "", "one hop through the scale-up fabric"},
};

constexpr std::array kFlopKeys = {
    OptionSpec{"fp4", "FLOP rate", "", "dense FP4 (NVFP4/MXFP4)"},
    OptionSpec{"fp8", "FLOP rate", "", "dense FP8"},
    OptionSpec{"bf16", "FLOP rate", "", "dense BF16"},
    OptionSpec{"fp32", "FLOP rate", "", "dense FP32"},
};

constexpr std::array kSystemKeys = {
    OptionSpec{"name", "string", "", "catalog name"},
    OptionSpec{"display_name", "string", "", "human-readable name"},
    OptionSpec{"accelerator", "string", "", "accelerator catalog name"},
    OptionSpec{"accelerators", "integer", "", "accelerators per system"},
    OptionSpec{"topology", "string", "", "scale-up template: hgx | nvl72 | amd-mesh"},
    OptionSpec{"power", "map", "", "power envelope"},
};
constexpr std::array kSystemPowerKeys = {
    OptionSpec{"nameplate", "power", "", "provisioned (maximum input) power"},
};

}  // namespace

hw::Accelerator decode_accelerator(const YamlNode& n) {
  n.check_keys(kAcceleratorKeys);
  hw::Accelerator a;
  a.name = n.at("name").as_string();
  const YamlNode flops = n.at("peak_flops");
  flops.check_keys(kFlopKeys);
  for (const auto& key : flops.keys()) a.peak_flops[*hw::parse_dtype(key)] = positive(flops.at(key), Dimension::kFlopRate);
  a.hbm_bytes = positive(n.at("hbm_capacity"), Dimension::kBytes);
  a.hbm_bw_Bps = positive(n.at("hbm_bandwidth"), Dimension::kBandwidth);
  a.l2_bytes = n.quantity_or("l2_cache", Dimension::kBytes, 0.0);
  a.launch_floor_s = positive(n.at("launch_floor"), Dimension::kTime);
  a.tdp_w = positive(n.at("tdp"), Dimension::kPower);
  a.idle_w = positive(n.at("idle_power"), Dimension::kPower);
  if (a.idle_w >= a.tdp_w) throw n.at("idle_power").error("idle power must be below the TDP");
  a.scale_up_bw_Bps = positive(n.at("scale_up_bandwidth_per_direction"), Dimension::kBandwidth);
  a.scale_up_latency_s = positive(n.at("scale_up_latency"), Dimension::kTime);
  return a;
}

hw::System decode_system(const YamlNode& n, const core::Registry<hw::Accelerator>& accelerators) {
  n.check_keys(kSystemKeys);
  hw::System s;
  s.name = n.at("name").as_string();
  const YamlNode acc = n.at("accelerator");
  s.accelerator = accelerators.get(acc.as_string(), acc.where());
  s.accelerators = positive_int(n.at("accelerators"));
  s.topology = n.at("topology").as_string();
  if (s.topology != "hgx" && s.topology != "nvl72" && s.topology != "amd-mesh") {
    throw n.at("topology").error("unknown topology '" + s.topology + "'; valid: hgx, nvl72, amd-mesh");
  }
  s.scale_up_bw_Bps = s.accelerator.scale_up_bw_Bps;
  s.scale_up_latency_s = s.accelerator.scale_up_latency_s;
  const YamlNode power = n.at("power");
  power.check_keys(kSystemPowerKeys);
  s.nameplate_w = positive(power.at("nameplate"), Dimension::kPower);
  return s;
}

}  // namespace agentsim::exp
