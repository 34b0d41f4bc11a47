#include "hwmodels/memory_tier.hpp"

#include <algorithm>
#include <cmath>

namespace agentsim::hw {

std::string_view to_string(TierKind k) {
  switch (k) {
    case TierKind::kHbm: return "hbm";
    case TierKind::kHostDram: return "host-dram";
    case TierKind::kLocalSsd: return "local-ssd";
    case TierKind::kRemotePool: return "remote-pool";
  }
  return "?";
}

std::vector<MemoryTier> memory_tiers(const System& s) {
  const Accelerator& a = s.accelerator;
  const HostSpec& h = s.host;
  const int host_links = std::max(1, s.accelerators / std::max(1, h.gpus_per_host_link));
  std::vector<MemoryTier> tiers;
  tiers.push_back(MemoryTier{TierKind::kHbm, a.hbm_bytes, a.hbm_bw_Bps, a.launch_floor_s, "local",
                             a.hbm_bw_Bps, 1, s.accelerators});
  tiers.push_back(MemoryTier{TierKind::kHostDram, h.memory_bytes, h.memory_bw_Bps, h.gpu_link_latency_s,
                             to_string(h.gpu_link), h.gpu_link_bw_Bps, h.gpus_per_host_link, host_links});
  // The SSDs sit behind the host: every byte also crosses the GPU's host link.
  tiers.push_back(MemoryTier{TierKind::kLocalSsd, h.ssd_bytes, h.ssd_bw_Bps,
                             h.gpu_link_latency_s + kNvmeReadLatency_s, to_string(h.gpu_link),
                             h.gpu_link_bw_Bps, h.gpus_per_host_link, host_links});
  const int nics = std::max(1, s.scale_out.nics);
  const int gpus_per_nic = std::max(1, s.accelerators / nics);
  tiers.push_back(MemoryTier{TierKind::kRemotePool, 0, s.scale_out.nic_bw_Bps * nics, s.scale_out.latency_s,
                             "nic", s.scale_out.nic_bw_Bps, gpus_per_nic, nics});
  return tiers;
}

double per_gpu_bw_Bps(const MemoryTier& t, int active_gpus) {
  if (active_gpus <= 0) return 0;
  if (t.kind == TierKind::kHbm) return t.device_bw_Bps;
  const double active = static_cast<double>(active_gpus);
  const double links = static_cast<double>(std::max(1, t.links));
  // Evenly spread GPUs use ceil(active / links) per link at most gpus_per_link.
  const double per_link_sharers = std::min(static_cast<double>(t.gpus_per_link),
                                           std::max(1.0, std::ceil(active / links)));
  return std::min(t.link_bw_Bps / per_link_sharers, t.device_bw_Bps / active);
}

double packed_per_gpu_bw_Bps(const MemoryTier& t, int active_gpus) {
  if (active_gpus <= 0) return 0;
  if (t.kind == TierKind::kHbm) return t.device_bw_Bps;
  const double active = static_cast<double>(active_gpus);
  const double per_link_sharers = std::max(1.0, std::min(static_cast<double>(t.gpus_per_link), active));
  return std::min(t.link_bw_Bps / per_link_sharers, t.device_bw_Bps / active);
}

}  // namespace agentsim::hw
