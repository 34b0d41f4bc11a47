#pragma once
// Running totals of a KV cache hierarchy (one replica or a whole cluster):
// prefix hits by tier in tokens, evictions, bytes moved over each tier's link,
// preemptions and prefill-to-decode KV transfers. Windows are differences of two snapshots.
#include <string>
#include <vector>

namespace agentsim::metrics {

struct TierCounters {
  std::string name;           // "hbm", "host", "ssd", "remote"
  std::string link;           // the link that reaches it ("local", "pcie5", "nic", ...)
  long long hit_tokens = 0;   // prompt tokens found cached in this tier at admission
  long long evictions = 0;    // blocks that left this tier (demoted or dropped)
  double bytes_loaded = 0;    // moved from this tier into HBM (load-back, swap-in)
  double bytes_stored = 0;    // moved from HBM into this tier (demotion, offload, swap-out)
};

struct CacheCounters {
  long long lookup_tokens = 0;  // prompt tokens of admitted requests
  long long hit_tokens = 0;     // of which served from a cache tier
  long long preemptions = 0;
  long long kv_transfers = 0;   // prefill -> decode handoffs
  double kv_transfer_bytes = 0; // over the topology, all devices of the replica together
  double kv_transfer_s = 0;     // summed transfer times
  std::vector<TierCounters> tiers;  // HBM first

  // Adds `o` tier by tier (tiers matched by position; names taken from `o` when missing).
  void add(const CacheCounters& o);
  // This minus `earlier` (a snapshot of the same counters).
  CacheCounters since(const CacheCounters& earlier) const;
};

}  // namespace agentsim::metrics
