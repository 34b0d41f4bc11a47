#pragma once
// A purchasable unit: N accelerators joined by a scale-up fabric, with hosts,
// NICs and a power envelope. All figures are SI and per system unless named.
#include <string>

#include "hwmodels/accelerator.hpp"

namespace agentsim::hw {

// How a GPU reaches host memory.
enum class HostLinkKind { kPcie4, kPcie5, kPcie6, kNvlinkC2c };
std::string_view to_string(HostLinkKind k);

struct HostSpec {
  int cpus = 0;                       // CPU sockets (Grace chips on NVL72)
  std::string cpu_model;
  double cpu_tdp_w = 0;               // per CPU
  double memory_bytes = 0;            // host DRAM, whole system
  double memory_bw_Bps = 0;           // host DRAM bandwidth, whole system
  HostLinkKind gpu_link = HostLinkKind::kPcie5;
  double gpu_link_bw_Bps = 0;         // one host link, per direction
  double gpu_link_latency_s = 0;
  int gpus_per_host_link = 1;         // GPUs sharing one host link's bandwidth
  double ssd_bytes = 0;               // local NVMe, whole system
  double ssd_bw_Bps = 0;              // local NVMe read bandwidth, whole system
};

struct ScaleOutSpec {
  int nics = 0;                       // GPU-facing NICs per system
  double nic_bw_Bps = 0;              // per NIC, per direction
  double nic_w = 0;                   // per NIC incl. optics share
  double latency_s = 0;               // one-way GPU to GPU across the fabric
};

// Power figures of a system. Rack items are 0 where the system has none.
struct SystemPowerSpec {
  double nameplate_w = 0;             // provisioned (maximum input) power
  double switch_w = 0;                // scale-up switch chips or trays, total
  double host_memory_w = 0;           // host DRAM DIMMs (0 when inside cpu_tdp)
  double fans_misc_w = 0;             // fans, pumps, BMC, storage, management
  double psu_efficiency = 1.0;        // DC out / AC in, in (0, 1]
  // NVL72-class rack items.
  int nvlink_switch_trays = 0;
  double switch_tray_w = 0;
  int compute_trays = 0;
  double compute_tray_w = 0;
  int power_shelves = 0;
  double power_shelf_capacity_w = 0;
  double rack_nameplate_w = 0;
  double rack_draw_under_load_w = 0;  // published draw at load (a reference, not an input)
};

struct System {
  std::string name;                 // catalog name, e.g. "hgx-h200"
  std::string display_name;
  Accelerator accelerator;
  int accelerators = 0;             // per system
  std::string topology;             // scale-up template: "hgx", "nvl72", "amd-mesh"
  int scale_up_switch_chips = 0;    // NVSwitch chips in the scale-up domain (0: direct mesh)
  double scale_up_bw_Bps = 0;       // per accelerator, per direction
  double scale_up_latency_s = 0;    // one hop through the scale-up fabric
  HostSpec host;
  ScaleOutSpec scale_out;
  SystemPowerSpec power;
  double nameplate_w = 0;           // provisioned (maximum input) power; = power.nameplate_w
};

}  // namespace agentsim::hw
