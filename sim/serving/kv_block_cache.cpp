#include "sim/serving/kv_block_cache.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::serving {

std::vector<BlockKey> chain_block_keys(std::uint64_t ns, std::span<const std::uint64_t> block_ids) {
  std::vector<BlockKey> keys;
  keys.reserve(block_ids.size());
  BlockKey h = chain_seed(ns);
  for (std::uint64_t id : block_ids) {
    h = chain_next(h, id);
    keys.push_back(h);
  }
  return keys;
}

KvBlockCache::KvBlockCache(std::vector<KvTier> tiers) : tiers_(std::move(tiers)) {
  if (tiers_.empty()) throw core::Error("a KV cache needs at least the HBM tier");
  for (const auto& t : tiers_) {
    if (t.capacity_blocks < 0) throw core::Error("KV tier '" + t.name + "' has a negative capacity");
  }
  used_.assign(tiers_.size(), 0);
  lru_.resize(tiers_.size());
  stats_.tiers.resize(tiers_.size());
}

long long KvBlockCache::cached_prefix(std::span<const BlockKey> keys) const {
  long long n = 0;
  for (BlockKey k : keys) {
    if (blocks_.find(k) == blocks_.end()) break;
    ++n;
  }
  return n;
}

void KvBlockCache::evict_one(int tier) {
  auto& lru = lru_[tier];
  const BlockKey victim = lru.back();
  lru.pop_back();
  --used_[tier];
  const int below = tier + 1;
  if (below < tiers() && tiers_[below].capacity_blocks > 0) {
    make_room(below, 1);
    Block& b = blocks_[victim];
    b.tier = below;
    lru_[below].push_front(victim);
    b.lru_pos = lru_[below].begin();
    ++used_[below];
    ++stats_.tiers[below].demoted_in;
  } else {
    blocks_.erase(victim);
    ++stats_.tiers[tier].dropped;
  }
}

void KvBlockCache::make_room(int tier, long long blocks) {
  while (used_[tier] + blocks > tiers_[tier].capacity_blocks && !lru_[tier].empty()) evict_one(tier);
}

std::optional<KvBlockCache::Acquired> KvBlockCache::acquire(std::span<const BlockKey> keys,
                                                             long long anonymous_blocks) {
  // Feasibility first, so a refusal changes nothing: count the HBM blocks this
  // needs and the unreferenced HBM blocks it would pin (those cannot be evicted for it).
  long long need_new = anonymous_blocks;
  long long pin_evictable_hbm = 0;
  for (BlockKey k : keys) {
    auto it = blocks_.find(k);
    if (it == blocks_.end() || it->second.tier != 0) {
      ++need_new;
    } else if (it->second.refs == 0) {
      ++pin_evictable_hbm;
    }
  }
  const long long evictable = static_cast<long long>(lru_[0].size()) - pin_evictable_hbm;
  if (need_new > tiers_[0].capacity_blocks - used_[0] + evictable) return std::nullopt;

  Acquired out;
  out.prefix_blocks_per_tier.assign(tiers_.size(), 0);
  ++stats_.acquires;
  stats_.lookup_blocks += static_cast<long long>(keys.size());
  bool in_prefix = true;
  // Pin HBM-resident hits first so that making room below cannot evict them.
  for (BlockKey k : keys) {
    auto it = blocks_.find(k);
    if (it != blocks_.end() && it->second.tier == 0) {
      Block& b = it->second;
      if (b.refs++ == 0) lru_[0].erase(b.lru_pos);
    }
  }
  for (BlockKey k : keys) {
    auto it = blocks_.find(k);
    if (it == blocks_.end()) {
      in_prefix = false;
      ++stats_.miss_blocks;
      make_room(0, 1);
      Block b;
      b.tier = 0;
      b.refs = 1;
      blocks_.emplace(k, b);
      ++used_[0];
      continue;
    }
    Block& b = it->second;
    const int tier = b.tier;
    if (in_prefix) {
      ++out.prefix_blocks;
      ++out.prefix_blocks_per_tier[tier];
      ++stats_.tiers[tier].hit_blocks;
    } else {
      ++stats_.miss_blocks;
    }
    if (tier != 0) {
      // Lower-tier blocks are never referenced: take it out of its tier and load it back.
      lru_[tier].erase(b.lru_pos);
      --used_[tier];
      ++stats_.tiers[tier].promoted_blocks;
      make_room(0, 1);
      Block& moved = blocks_[k];  // make_room may rehash; look it up again
      moved.tier = 0;
      moved.refs = 1;
      ++used_[0];
    }
  }
  make_room(0, anonymous_blocks);
  used_[0] += anonymous_blocks;
  return out;
}

bool KvBlockCache::reserve(long long blocks) {
  if (blocks > available_hbm_blocks()) return false;
  make_room(0, blocks);
  used_[0] += blocks;
  return true;
}

long long KvBlockCache::offload(std::span<const BlockKey> keys) {
  if (tiers() < 2 || tiers_[1].capacity_blocks == 0) return 0;
  long long moved = 0;
  // Tail first, each to the front: the prefix head ends most recent, the tail is evicted first.
  for (auto r = keys.rbegin(); r != keys.rend(); ++r) {
    const BlockKey k = *r;
    auto it = blocks_.find(k);
    if (it == blocks_.end() || it->second.tier != 0 || it->second.refs != 0) continue;
    lru_[0].erase(it->second.lru_pos);
    --used_[0];
    make_room(1, 1);
    Block& b = blocks_[k];  // make_room may erase others; look it up again
    b.tier = 1;
    lru_[1].push_front(k);
    b.lru_pos = lru_[1].begin();
    ++used_[1];
    ++stats_.tiers[1].offloaded_in;
    ++moved;
  }
  return moved;
}

void KvBlockCache::release(std::span<const BlockKey> keys, long long anonymous_blocks) {
  used_[0] -= anonymous_blocks;
  // Release tail first so the head of the prefix is the most recently used and
  // the tail is evicted first (a cached prefix stays contiguous).
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto it = blocks_.find(*k);
    if (it == blocks_.end() || it->second.refs <= 0) {
      throw core::Error("KV cache release of a block that is not held");
    }
    Block& b = it->second;
    if (--b.refs == 0) {
      lru_[0].push_front(*k);
      b.lru_pos = lru_[0].begin();
    }
  }
}

}  // namespace agentsim::serving
