#pragma once
// Memory tiers a GPU can hold data in (HBM, host DRAM, local SSD, remote
// pool), each with the link it is reached by and how many GPUs share that link.
#include <string_view>
#include <vector>

#include "hwmodels/system.hpp"

namespace agentsim::hw {

enum class TierKind { kHbm, kHostDram, kLocalSsd, kRemotePool };
std::string_view to_string(TierKind k);

struct MemoryTier {
  TierKind kind = TierKind::kHbm;
  double capacity_bytes = 0;   // whole system (HBM: per GPU); 0 for the remote pool = set by the deployment
  double device_bw_Bps = 0;    // the memory's own bandwidth, shared by every GPU of the system (HBM: per GPU)
  double latency_s = 0;        // one small access from a GPU, link included
  std::string_view link;       // "local", "pcie5", "nvlink-c2c", "nic", ...
  double link_bw_Bps = 0;      // one link, per direction
  int gpus_per_link = 1;       // GPUs sharing one link
  int links = 1;               // links of this kind in the system
};

// Latency of one NVMe read (assumed: ~80 us for a 4 KiB random read on
// datacenter NVMe; replaced by calibration).
inline constexpr double kNvmeReadLatency_s = 80e-6;

// The tiers of `s`, fastest first: HBM, host DRAM, local SSD, remote pool
// (reached over the system's NICs).
std::vector<MemoryTier> memory_tiers(const System& s);

// Bandwidth one GPU gets from `t` when `active_gpus` GPUs of the system use it
// at once, spread evenly over the links: limited by its share of its link and
// by its share of the device bandwidth.
double per_gpu_bw_Bps(const MemoryTier& t, int active_gpus);

// Bandwidth one GPU gets from `t` when `active_gpus` consecutively numbered GPUs
// (one replica's plan) use it: they fill each link before the next (a GB200 superchip's
// two GPUs share one C2C link), so min(gpus_per_link, active) share a link.
double packed_per_gpu_bw_Bps(const MemoryTier& t, int active_gpus);

}  // namespace agentsim::hw
