#pragma once
// A replica's KV memory: the block cache (HBM plus lower tiers) keyed by the
// prompt's prefix block keys, the retention policy applied when a turn ends
// (plain LRU, pin for a TTL, offload to host), load-back costs, and counters.
// The cache unit is max(engine block, trace block) tokens; every capacity is in units.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/flat_index.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/simulator.hpp"
#include "sim/metrics/cache_counters.hpp"
#include "sim/serving/kv_block_cache.hpp"
#include "sim/serving/request.hpp"

namespace agentsim::serving {

enum class Retention { kLru, kTtlPin, kOffload };
// The names of `serving.kv_cache.retention`.
inline constexpr core::NameTable<Retention, 3> kRetentionNames = {{
    {"lru", Retention::kLru}, {"ttl", Retention::kTtlPin}, {"offload", Retention::kOffload}}};

struct KvTierSpec {
  std::string name;            // "hbm", "host", "ssd", "remote"
  std::string link;            // the link that reaches it
  long long capacity_tokens = 0;
  double bw_Bps = 0;           // load-back bandwidth of the whole replica (all its devices)
  double latency_s = 0;        // per load-back
};

struct KvManagerOptions {
  long long unit_tokens = 1;       // cache granularity (tokens per block)
  std::vector<KvTierSpec> tiers;   // [0] = HBM; absent tiers have capacity 0
  double kv_bytes_per_token = 0;   // whole replica
  bool prefix_caching = true;
  Retention retention = Retention::kLru;
  double ttl_s = 0;                // pin duration after a turn ends (kTtlPin)
};

// Blocks a running sequence holds.
struct KvHold {
  std::vector<BlockKey> keys;  // prompt prefix blocks (keyed)
  std::vector<std::uint32_t> entries;  // their cache entries (KvBlockCache::acquire), for release
  long long anon_units = 0;    // answer and unkeyed prompt blocks
  long long hit_units = 0;     // of `keys`, those found cached at admission (the rest the sequence computes)
  long long units() const { return static_cast<long long>(keys.size()) + anon_units; }
};

struct KvAdmission {
  long long cached_tokens = 0;  // prompt tokens not recomputed (at most input - 1)
  double load_s = 0;            // load-back of the lower-tier part of the prefix
};

// Cache unit for an engine block and a trace block (0 = no block data): the larger,
// which must be a multiple of the smaller. Throws core::Error otherwise.
long long cache_unit_tokens(long long engine_block_tokens, long long trace_block_tokens);

class KvManager {
 public:
  // `on_freed` runs when a TTL pin expires (HBM may have room again).
  KvManager(core::Simulator& sim, KvManagerOptions opt, std::function<void()> on_freed);

  long long units_for(long long tokens) const { return (tokens + opt_.unit_tokens - 1) / opt_.unit_tokens; }
  long long unit_tokens() const { return opt_.unit_tokens; }
  long long capacity_units() const { return cache_.capacity_blocks(0); }
  double used_fraction() const;
  // Prompt block keys of `r` at cache granularity (empty without block data or caching).
  std::vector<BlockKey> keys_for(const Request& r) const;
  // Prompt tokens of `r` cached on this replica now (any tier), for KV-aware routing.
  long long cached_prefix_tokens(const Request& r) const;

  // Pins the prompt prefix and `total_tokens` worth of units in HBM; nullopt (no change)
  // when HBM cannot hold them.
  std::optional<KvAdmission> admit(const Request& r, long long total_tokens, KvHold& hold);
  // The same with `keys` = keys_for(r) computed by the caller (kept across refused
  // attempts); on success they move into `hold`.
  std::optional<KvAdmission> admit(const Request& r, std::vector<BlockKey>& keys, long long total_tokens,
                                   KvHold& hold);
  // Caches the first `tokens` of r's prompt as computed KV, evictable, without counting a lookup
  // (what earlier turns not replayed would have left: Request::warm_prefix_tokens); no change
  // when HBM cannot hold them.
  void warm(const Request& r, long long tokens);
  // Admits `tokens` of unkeyed KV (a transferred or swapped-in context).
  bool admit_anonymous(long long tokens, KvHold& hold);
  // One more unit for decode growth; false when HBM is full of referenced blocks.
  bool grow(KvHold& hold);
  // A turn ended: releases `hold` under the retention policy.
  void finish(const Request& r, KvHold& hold);
  // Releases `hold` now (preemption). Keyed blocks holding KV stay cached as evictable: those
  // found cached at admission and those wholly within the first `computed_tokens` of the prompt
  // (-1: all); the others were allocated but never computed, and leave the cache.
  void drop(KvHold& hold, long long computed_tokens = -1);
  // Time and counters of moving `tokens` of KV between HBM and `tier` (swap).
  double move_s(int tier, long long tokens) const;
  void count_swap(int tier, long long tokens_out, long long tokens_in);
  void count_preemption() { ++preemptions_; }
  bool has_tier(int tier) const;

  metrics::CacheCounters counters() const;

 private:
  core::Simulator& sim_;
  KvManagerOptions opt_;
  std::function<void()> on_freed_;
  KvBlockCache cache_;
  long long lookup_tokens_ = 0, hit_tokens_ = 0, preemptions_ = 0;
  std::vector<long long> tier_hit_tokens_;
  std::vector<double> swap_out_bytes_, swap_in_bytes_;

  // Per agent, the prefix digests of its last admitted prompt at unit ends: the next turn
  // of the session extends them from the shared prefix instead of rehashing the whole prompt.
  struct ChainMemo {
    const wl::Trace* trace = nullptr;
    std::uint64_t ns = 0;
    wl::TurnRef turn;
    std::size_t length = 0;                   // prompt blocks
    std::vector<std::uint64_t> unit_digests;  // digest after blocks m, 2m, ... (m trace blocks per unit)
    std::uint64_t tail = 0;                   // digest after all `length` blocks
    std::vector<std::uint32_t> entries;       // the cache entries of its last admitted prompt's keys (acquire's hints)
  };
  std::vector<BlockKey> keys_for(const Request& r, bool remember) const;
  mutable core::FlatIndex chain_index_;  // agent -> index into chains_
  mutable std::vector<ChainMemo> chains_;
};

}  // namespace agentsim::serving
