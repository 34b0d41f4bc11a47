#include "hwmodels/hardware_decoder.hpp"

#include <array>

#include "sim/core/decode_helpers.hpp"

namespace agentsim::hw {
using core::Dimension;
using core::OptionSpec;
using core::YamlNode;

namespace {

constexpr std::array kAcceleratorKeys = {
    OptionSpec{"name", "string", "", "catalog name"},
    OptionSpec{"display_name", "string", "", "human-readable name"},
    OptionSpec{"vendor", "string", "", "nvidia | amd"},
    OptionSpec{"architecture", "string", "", "the die's architecture generation (hopper, blackwell, cdna3, ...): parts of one run one generation's kernels"},
    OptionSpec{"peak_flops", "map dtype -> FLOP rate", "", "dense tensor peaks (never sparse)"},
    OptionSpec{"hbm_capacity", "bytes", "", "HBM capacity (usable where published)"},
    OptionSpec{"hbm_bandwidth", "bandwidth", "", "HBM bandwidth"},
    OptionSpec{"l2_cache", "bytes", "0B", "last-level on-chip cache"},
    OptionSpec{"launch_floor", "time", "", "minimum time of one kernel launch"},
    OptionSpec{"tdp", "power", "", "board power limit"},
    OptionSpec{"idle_power", "power", "", "power with nothing running"},
    OptionSpec{"decode_power_fraction", "number", "", "fraction of (TDP - idle) drawn by memory-bound decode, in (0, 1]"},
    OptionSpec{"scale_up_bandwidth_per_direction", "bandwidth", "", "scale-up bandwidth per GPU per direction, all links"},
    OptionSpec{"scale_up_latency", "time", "", "one hop through the scale-up fabric"},
    OptionSpec{"efficiency_profile", "path", "", "calibration efficiency profile (YAML, relative to the catalog root)"},
    OptionSpec{"kernel_tables_from", "map table -> accelerator", "",
               "profile tables taken from a same-die sibling's measured table instead of this accelerator's own rows"},
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
    OptionSpec{"scale_up_switch_chips", "integer", "0", "NVSwitch chips in the scale-up domain (required for hgx, nvl72)"},
    OptionSpec{"host", "map", "", "host CPUs, memory, SSD and the GPU-host link"},
    OptionSpec{"scale_out", "map", "", "GPU-facing NICs"},
    OptionSpec{"power", "map", "", "power envelope"},
};
constexpr std::array kHostKeys = {
    OptionSpec{"cpus", "integer", "", "CPU sockets (Grace chips) per system"},
    OptionSpec{"cpu_model", "string", "", "CPU model"},
    OptionSpec{"cpu_tdp", "power", "", "per CPU"},
    OptionSpec{"memory_capacity", "bytes", "", "host DRAM per system"},
    OptionSpec{"memory_bandwidth", "bandwidth", "", "host DRAM bandwidth per system"},
    OptionSpec{"gpu_link", "string", "", "pcie4 | pcie5 | pcie6 | nvlink-c2c"},
    OptionSpec{"gpu_link_bandwidth_per_direction", "bandwidth", "", "one host link, per direction"},
    OptionSpec{"gpu_link_latency", "time", "", "one small transfer over the host link"},
    OptionSpec{"gpus_per_host_link", "integer", "", "GPUs sharing one host link"},
    OptionSpec{"ssd_capacity", "bytes", "", "local NVMe per system"},
    OptionSpec{"ssd_bandwidth", "bandwidth", "", "local NVMe read bandwidth per system"},
};
constexpr std::array kScaleOutKeys = {
    OptionSpec{"nics", "integer", "", "GPU-facing NICs per system"},
    OptionSpec{"nic_bandwidth", "bandwidth", "", "per NIC, per direction"},
    OptionSpec{"nic_power", "power", "", "per NIC incl. optics share"},
    OptionSpec{"latency", "time", "", "one-way GPU to GPU through one switch"},
};
constexpr std::array kSystemPowerKeys = {
    OptionSpec{"nameplate", "power", "", "provisioned (maximum input) power"},
    OptionSpec{"switch_power", "power", "", "scale-up switches, total (0W for a direct mesh)"},
    OptionSpec{"host_memory_power", "power", "", "host DRAM, total (0W when inside cpu_tdp)"},
    OptionSpec{"fans_and_misc", "power", "", "fans, pumps, BMC, storage, management"},
    OptionSpec{"psu_efficiency", "number", "", "DC out / AC in, in (0, 1]"},
    OptionSpec{"nvlink_switch_trays", "integer", "0", "rack: NVLink switch trays"},
    OptionSpec{"switch_tray_power", "power", "0W", "rack: per switch tray"},
    OptionSpec{"compute_trays", "integer", "0", "rack: compute trays"},
    OptionSpec{"compute_tray_power", "power", "0W", "rack: per compute tray, maximum"},
    OptionSpec{"power_shelves", "integer", "0", "rack: power shelves"},
    OptionSpec{"power_shelf_capacity", "power", "0W", "rack: per shelf"},
    OptionSpec{"rack_nameplate", "power", "0W", "rack: provisioned power"},
    OptionSpec{"rack_draw_under_load", "power", "0W", "rack: published draw under load (reference)"},
};

double non_negative(const YamlNode& n, Dimension d) { return n.as_quantity(d); }

double fraction(const YamlNode& n) {
  const double v = n.as_number();
  if (!(v > 0 && v <= 1)) throw n.error("expected a fraction in (0, 1]");
  return v;
}

hw::HostLinkKind host_link(const YamlNode& n) {
  const std::string s = n.as_string();
  if (s == "pcie4") return hw::HostLinkKind::kPcie4;
  if (s == "pcie5") return hw::HostLinkKind::kPcie5;
  if (s == "pcie6") return hw::HostLinkKind::kPcie6;
  if (s == "nvlink-c2c") return hw::HostLinkKind::kNvlinkC2c;
  throw n.error("unknown host link '" + s + "'; valid: pcie4, pcie5, pcie6, nvlink-c2c");
}

int optional_count(const YamlNode& n, std::string_view key) {
  const auto v = n.find(key);
  if (!v) return 0;
  const long long c = v->as_integer();
  if (c < 0 || c > 1'000'000) throw v->error("expected a count >= 0");
  return static_cast<int>(c);
}

}  // namespace

hw::Accelerator decode_accelerator(const YamlNode& n) {
  n.check_keys(kAcceleratorKeys);
  hw::Accelerator a;
  a.name = n.at("name").as_string();
  a.display_name = n.at("display_name").as_string();
  a.vendor = n.at("vendor").as_string();
  if (a.vendor != "nvidia" && a.vendor != "amd") throw n.at("vendor").error("unknown vendor '" + a.vendor + "'; valid: nvidia, amd");
  if (const auto arch = n.find("architecture")) a.architecture = arch->as_string();
  const YamlNode flops = n.at("peak_flops");
  flops.check_keys(kFlopKeys);
  for (const auto& key : flops.keys()) a.peak_flops[*hw::parse_dtype(key)] = positive(flops.at(key), Dimension::kFlopRate);
  if (a.peak_flops.empty()) throw flops.error("at least one dense peak is required");
  a.hbm_bytes = positive(n.at("hbm_capacity"), Dimension::kBytes);
  a.hbm_bw_Bps = positive(n.at("hbm_bandwidth"), Dimension::kBandwidth);
  a.l2_bytes = n.quantity_or("l2_cache", Dimension::kBytes, 0.0);
  a.launch_floor_s = positive(n.at("launch_floor"), Dimension::kTime);
  a.tdp_w = positive(n.at("tdp"), Dimension::kPower);
  a.idle_w = positive(n.at("idle_power"), Dimension::kPower);
  if (a.idle_w >= a.tdp_w) throw n.at("idle_power").error("idle power must be below the TDP");
  a.decode_power_fraction = fraction(n.at("decode_power_fraction"));
  a.scale_up_bw_Bps = positive(n.at("scale_up_bandwidth_per_direction"), Dimension::kBandwidth);
  a.scale_up_latency_s = positive(n.at("scale_up_latency"), Dimension::kTime);
  if (auto p = n.find("efficiency_profile")) a.efficiency_profile = p->as_string();
  if (auto t = n.find("kernel_tables_from")) {
    if (!t->is_map()) throw t->error("expected a mapping of profile table name (e.g. gemm_fp4) to accelerator");
    for (const std::string& table : t->keys()) {
      const YamlNode sib = t->at(table);
      const std::string from = sib.as_string();
      if (from.empty() || from == a.name) throw sib.error("expected another accelerator's catalog name");
      a.kernel_tables_from[table] = from;
    }
  }
  return a;
}

hw::System decode_system(const YamlNode& n, const core::Registry<hw::Accelerator>& accelerators) {
  n.check_keys(kSystemKeys);
  hw::System s;
  s.name = n.at("name").as_string();
  s.display_name = n.at("display_name").as_string();
  const YamlNode acc = n.at("accelerator");
  s.accelerator = accelerators.get(acc.as_string(), acc.where());
  s.accelerators = positive_int(n.at("accelerators"));
  s.topology = n.at("topology").as_string();
  if (s.topology != "hgx" && s.topology != "nvl72" && s.topology != "amd-mesh") {
    throw n.at("topology").error("unknown topology '" + s.topology + "'; valid: hgx, nvl72, amd-mesh");
  }
  if (s.topology == "amd-mesh") {
    s.scale_up_switch_chips = optional_count(n, "scale_up_switch_chips");
  } else {
    s.scale_up_switch_chips = positive_int(n.at("scale_up_switch_chips"));
  }
  s.scale_up_bw_Bps = s.accelerator.scale_up_bw_Bps;
  s.scale_up_latency_s = s.accelerator.scale_up_latency_s;

  const YamlNode host = n.at("host");
  host.check_keys(kHostKeys);
  hw::HostSpec& h = s.host;
  h.cpus = positive_int(host.at("cpus"));
  h.cpu_model = host.at("cpu_model").as_string();
  h.cpu_tdp_w = positive(host.at("cpu_tdp"), Dimension::kPower);
  h.memory_bytes = positive(host.at("memory_capacity"), Dimension::kBytes);
  h.memory_bw_Bps = positive(host.at("memory_bandwidth"), Dimension::kBandwidth);
  h.gpu_link = host_link(host.at("gpu_link"));
  h.gpu_link_bw_Bps = positive(host.at("gpu_link_bandwidth_per_direction"), Dimension::kBandwidth);
  h.gpu_link_latency_s = positive(host.at("gpu_link_latency"), Dimension::kTime);
  h.gpus_per_host_link = positive_int(host.at("gpus_per_host_link"));
  if (h.gpus_per_host_link > s.accelerators) throw host.at("gpus_per_host_link").error("more than the system's accelerators");
  h.ssd_bytes = positive(host.at("ssd_capacity"), Dimension::kBytes);
  h.ssd_bw_Bps = positive(host.at("ssd_bandwidth"), Dimension::kBandwidth);

  const YamlNode out = n.at("scale_out");
  out.check_keys(kScaleOutKeys);
  s.scale_out.nics = positive_int(out.at("nics"));
  s.scale_out.nic_bw_Bps = positive(out.at("nic_bandwidth"), Dimension::kBandwidth);
  s.scale_out.nic_w = positive(out.at("nic_power"), Dimension::kPower);
  s.scale_out.latency_s = positive(out.at("latency"), Dimension::kTime);

  const YamlNode power = n.at("power");
  power.check_keys(kSystemPowerKeys);
  hw::SystemPowerSpec& p = s.power;
  p.nameplate_w = positive(power.at("nameplate"), Dimension::kPower);
  p.switch_w = non_negative(power.at("switch_power"), Dimension::kPower);
  p.host_memory_w = non_negative(power.at("host_memory_power"), Dimension::kPower);
  p.fans_misc_w = non_negative(power.at("fans_and_misc"), Dimension::kPower);
  p.psu_efficiency = fraction(power.at("psu_efficiency"));
  p.nvlink_switch_trays = optional_count(power, "nvlink_switch_trays");
  p.switch_tray_w = power.quantity_or("switch_tray_power", Dimension::kPower, 0.0);
  p.compute_trays = optional_count(power, "compute_trays");
  p.compute_tray_w = power.quantity_or("compute_tray_power", Dimension::kPower, 0.0);
  p.power_shelves = optional_count(power, "power_shelves");
  p.power_shelf_capacity_w = power.quantity_or("power_shelf_capacity", Dimension::kPower, 0.0);
  p.rack_nameplate_w = power.quantity_or("rack_nameplate", Dimension::kPower, 0.0);
  p.rack_draw_under_load_w = power.quantity_or("rack_draw_under_load", Dimension::kPower, 0.0);
  if (p.nvlink_switch_trays > 0 && !(p.switch_tray_w > 0)) {
    throw power.error("nvlink_switch_trays needs switch_tray_power");
  }
  s.nameplate_w = p.nameplate_w;
  return s;
}

DType decode_dtype(const YamlNode& n) {
  const auto d = hw::parse_dtype(n.as_string());
  if (!d) throw n.error("unknown dtype '" + n.as_string() + "'; valid: fp4, fp8, bf16, fp32");
  return *d;
}

}  // namespace agentsim::hw
