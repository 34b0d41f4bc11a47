#pragma once
// A replica's KV cache at block granularity, as serving engines keep it:
// blocks keyed by a hash of the whole prefix they end, reference-counted while a sequence
// uses them, least-recently-released first out among unreferenced ones.
// Tier 0 is HBM; an HBM eviction demotes the block to the next tier instead of
// dropping it, and the last tier drops. A prefix hit in a lower tier is
// promoted (loaded back) to HBM when a sequence acquires it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/huge_page_allocator.hpp"

namespace agentsim::serving {

using BlockKey = std::uint64_t;

// Prefix keys for a prompt: key_i names blocks 0..i in `ns` (a namespace, e.g. one per
// trace), so equal keys mean equal prefixes. A prefix's digest sums one term per block
// (its id mixed with its position), so blocks hash independently rather than along a
// serial chain; its key mixes the digest with the namespace.
std::vector<BlockKey> prefix_block_keys(std::uint64_t ns, std::span<const std::uint64_t> block_ids);
// SplitMix64's finaliser: cheap, well distributed, deterministic.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// Block `block_id` at `position` (0 for the prompt's first block): its term of the digest.
inline std::uint64_t prefix_term(std::uint64_t block_id, std::uint64_t position) {
  return mix64(block_id * 0x9e3779b97f4a7c15ULL + position * 0xc2b2ae3d27d4eb4fULL + 0x165667b19e3779f9ULL);
}
// The key of the prefix whose terms sum to `digest`, in the namespace whose seed is `seed`.
inline std::uint64_t prefix_seed(std::uint64_t ns) { return mix64(ns ^ 0x6b76636163686531ULL); }
inline BlockKey prefix_key(std::uint64_t seed, std::uint64_t digest) { return mix64(digest + seed); }

struct KvTier {
  std::string name;              // "hbm", "host", "ssd", "remote"
  long long capacity_blocks = 0;
};

struct KvTierStats {
  long long hit_blocks = 0;      // prefix blocks found in this tier at acquire
  long long promoted_blocks = 0; // loaded back from this tier into HBM
  long long demoted_in = 0;      // blocks that arrived here from the tier above
  long long dropped = 0;         // blocks evicted from this tier with nowhere to go
  long long offloaded_in = 0;    // blocks moved here by offload() (retention on turn end)
};

struct KvCacheStats {
  long long acquires = 0;
  long long lookup_blocks = 0;   // keyed blocks asked for
  long long miss_blocks = 0;     // keyed blocks outside the cached prefix
  std::vector<KvTierStats> tiers;
};

class KvBlockCache {
 public:
  // tiers[0] is HBM; capacities must be >= 0.
  explicit KvBlockCache(std::vector<KvTier> tiers);

  // Result of acquire: the cached prefix length, split by the tier it was in.
  struct Acquired {
    long long prefix_blocks = 0;
    std::vector<long long> prefix_blocks_per_tier;
  };

  // Longest cached prefix of `keys` (any tier), without changing anything.
  long long cached_prefix(std::span<const BlockKey> keys) const;
  // Pins `keys` in HBM (promoting lower-tier hits, allocating the missing ones)
  // plus `anonymous_blocks` unkeyed blocks (answer tokens, partial blocks).
  // Returns nullopt and changes nothing if HBM cannot hold them without
  // evicting referenced blocks. `entries`, when given, receives each key's block
  // entry on success (pinned blocks never move: release can skip the lookups).
  // `hints[j]`, when given, is a guess at keys[j]'s entry (an earlier acquire's): used
  // when it still holds that key, looked up otherwise, so the result never depends on it.
  std::optional<Acquired> acquire(std::span<const BlockKey> keys, long long anonymous_blocks,
                                  std::vector<std::uint32_t>* entries = nullptr,
                                  std::span<const std::uint32_t> hints = {});
  // Unpins what acquire pinned. The first `holding` keyed blocks (default: all) stay cached
  // (evictable); a later one no other sequence references holds no KV (allocated, never
  // computed) and leaves the cache. `entries`: what acquire gave for `keys`, or empty to look
  // the keys up.
  void release(std::span<const BlockKey> keys, long long anonymous_blocks,
               std::span<const std::uint32_t> entries = {}, std::size_t holding = SIZE_MAX);
  // Takes `blocks` more unkeyed HBM blocks (decode growth); false and no change when HBM is full
  // of referenced blocks.
  bool reserve(long long blocks);
  // Moves the unreferenced HBM blocks among `keys` to tier 1 now (offload at turn end);
  // returns how many moved. No-op without a lower tier.
  long long offload(std::span<const BlockKey> keys);
  // Blocks that could be pinned in HBM now: free plus unreferenced.
  long long available_hbm_blocks() const {
    return tiers_[0].capacity_blocks - used_[0] + lru_[0].size;
  }

  long long capacity_blocks(int tier) const { return tiers_[tier].capacity_blocks; }
  long long used_blocks(int tier) const { return used_[tier]; }
  long long referenced_hbm_blocks() const { return used_[0] - lru_[0].size; }
  int tiers() const { return static_cast<int>(tiers_.size()); }
  const KvCacheStats& stats() const { return stats_; }

 private:
  // Blocks live in a pool of entries that never move (a freed entry is reused by the
  // next insert); an open-addressing index (linear probing, tombstones) maps keys to
  // entries. Blocks inserted together (a prompt's) sit together in the pool, so walks
  // along a prompt's entries are sequential. Each tier's unreferenced blocks form an
  // intrusive LRU list through the entries.
  static constexpr std::uint32_t kNil = 0xffffffffU;
  static constexpr std::uint32_t kGone = 0xfffffffeU;  // an index tombstone
  struct Entry {
    BlockKey key = 0;
    std::int32_t refs = 0;
    bool live = false;
    std::int8_t tier = 0;
    std::uint32_t prev = kNil, next = kNil;  // LRU neighbours (towards head, towards tail) when refs == 0
  };
  struct Slot {
    std::uint32_t tag = 0;       // the hash's top 32 bits (hash()): the home slot, and a filter before the key
    std::uint32_t entry = kNil;  // kNil: empty; kGone: tombstone
  };
  struct Lru {
    std::uint32_t head = kNil, tail = kNil;  // head = most recently released
    long long size = 0;
  };

  static std::uint32_t hash(BlockKey k);
  std::uint64_t home(std::uint32_t tag) const { return tag >> (shift_ - 32); }
  void prefetch(std::span<const BlockKey> keys) const;
  std::uint32_t find(BlockKey k) const;  // the key's entry, or kNil
  std::uint32_t insert(BlockKey k);      // k must be absent; a fresh entry; may rebuild the index
  void erase(std::uint32_t i);           // frees entry i and its index slot
  void rebuild(std::size_t capacity);
  void push_front(int tier, std::uint32_t i);
  void unlink(int tier, std::uint32_t i);
  // Frees one block of `tier` by demoting its least recently released one (or dropping it).
  void evict_one(int tier);
  void make_room(int tier, long long blocks);

  std::vector<KvTier> tiers_;
  std::vector<long long> used_;
  std::vector<Lru> lru_;
  std::vector<Entry, core::HugePageAllocator<Entry>> pool_;
  std::vector<std::uint32_t> free_;     // entries to reuse, last freed first
  std::vector<Slot, core::HugePageAllocator<Slot>> index_;  // huge pages: probes are random
  std::uint64_t mask_ = 0;
  int shift_ = 64;
  std::size_t live_ = 0, gone_ = 0;     // index slots in use, tombstones
  std::vector<std::uint32_t> found_;    // acquire's scratch: each key's entry from its first lookup
  KvCacheStats stats_;
};

}  // namespace agentsim::serving
