#include "sim/metrics/cache_counters.hpp"

namespace agentsim::metrics {

void CacheCounters::add(const CacheCounters& o) {
  lookup_tokens += o.lookup_tokens;
  hit_tokens += o.hit_tokens;
  preemptions += o.preemptions;
  kv_transfers += o.kv_transfers;
  kv_transfer_bytes += o.kv_transfer_bytes;
  kv_transfer_s += o.kv_transfer_s;
  if (tiers.size() < o.tiers.size()) {
    for (std::size_t i = tiers.size(); i < o.tiers.size(); ++i) {
      tiers.push_back(TierCounters{o.tiers[i].name, o.tiers[i].link, 0, 0, 0, 0});
    }
  }
  for (std::size_t i = 0; i < o.tiers.size(); ++i) {
    tiers[i].hit_tokens += o.tiers[i].hit_tokens;
    tiers[i].evictions += o.tiers[i].evictions;
    tiers[i].bytes_loaded += o.tiers[i].bytes_loaded;
    tiers[i].bytes_stored += o.tiers[i].bytes_stored;
  }
}

CacheCounters CacheCounters::since(const CacheCounters& e) const {
  CacheCounters d = *this;
  d.lookup_tokens -= e.lookup_tokens;
  d.hit_tokens -= e.hit_tokens;
  d.preemptions -= e.preemptions;
  d.kv_transfers -= e.kv_transfers;
  d.kv_transfer_bytes -= e.kv_transfer_bytes;
  d.kv_transfer_s -= e.kv_transfer_s;
  for (std::size_t i = 0; i < d.tiers.size() && i < e.tiers.size(); ++i) {
    d.tiers[i].hit_tokens -= e.tiers[i].hit_tokens;
    d.tiers[i].evictions -= e.tiers[i].evictions;
    d.tiers[i].bytes_loaded -= e.tiers[i].bytes_loaded;
    d.tiers[i].bytes_stored -= e.tiers[i].bytes_stored;
  }
  return d;
}

}  // namespace agentsim::metrics
