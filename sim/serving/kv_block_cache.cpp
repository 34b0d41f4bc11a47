#include "sim/serving/kv_block_cache.hpp"

#include <algorithm>
#include <bit>

#include "sim/core/error.hpp"

namespace agentsim::serving {

std::vector<BlockKey> prefix_block_keys(std::uint64_t ns, std::span<const std::uint64_t> block_ids) {
  std::vector<BlockKey> keys;
  keys.reserve(block_ids.size());
  const std::uint64_t seed = prefix_seed(ns);
  std::uint64_t digest = 0;
  for (std::size_t i = 0; i < block_ids.size(); ++i) {
    digest += prefix_term(block_ids[i], i);
    keys.push_back(prefix_key(seed, digest));
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
  rebuild(16);
}

std::uint32_t KvBlockCache::hash(BlockKey k) {
  // Fibonacci hashing: keys are well mixed already, but tests and callers may pass small ones.
  return static_cast<std::uint32_t>((k * 0x9e3779b97f4a7c15ULL) >> 32);
}

void KvBlockCache::prefetch(std::span<const BlockKey> keys) const {
  // The index is far larger than the caches: start every key's miss at once rather than
  // one after another.
  for (BlockKey k : keys) __builtin_prefetch(&index_[home(hash(k))]);
}

std::uint32_t KvBlockCache::find(BlockKey k) const {
  const std::uint32_t t = hash(k);
  std::uint64_t i = home(t);
  while (true) {
    const Slot& s = index_[i];
    if (s.entry == kNil) return kNil;
    if (s.entry != kGone && s.tag == t && pool_[s.entry].key == k) return s.entry;
    i = (i + 1) & mask_;
  }
}

std::uint32_t KvBlockCache::insert(BlockKey k) {
  // Keep probe chains short: at most 70% of the slots live or tombstoned.
  if (10 * (live_ + gone_ + 1) > 7 * index_.size()) {
    std::size_t cap = index_.size();
    while (10 * (live_ + 1) > 4 * cap) cap *= 2;  // after a rebuild at most 40% live
    rebuild(cap);
  }
  std::uint32_t e = 0;
  if (free_.empty()) {
    e = static_cast<std::uint32_t>(pool_.size());
    pool_.emplace_back();
  } else {
    e = free_.back();
    free_.pop_back();
    pool_[e] = Entry{};
  }
  pool_[e].key = k;
  pool_[e].live = true;
  const std::uint32_t t = hash(k);
  std::uint64_t i = home(t);
  while (index_[i].entry < kGone) i = (i + 1) & mask_;
  Slot& s = index_[i];
  if (s.entry == kGone) --gone_;
  s.tag = t;
  s.entry = e;
  ++live_;
  return e;
}

void KvBlockCache::erase(std::uint32_t e) {
  const BlockKey k = pool_[e].key;
  pool_[e].live = false;
  free_.push_back(e);
  std::uint64_t i = home(hash(k));
  while (index_[i].entry != e) i = (i + 1) & mask_;
  --live_;
  // A tombstone keeps later slots of the probe chain reachable; when the next slot is
  // empty no chain runs through here, and the tombstones just before can go too.
  if (index_[(i + 1) & mask_].entry != kNil) {
    index_[i].entry = kGone;
    ++gone_;
    return;
  }
  index_[i].entry = kNil;
  std::uint64_t j = (i + mask_) & mask_;
  while (index_[j].entry == kGone) {
    index_[j].entry = kNil;
    --gone_;
    j = (j + mask_) & mask_;
  }
}

void KvBlockCache::rebuild(std::size_t capacity) {
  // Only the index moves: entries (and the LRU links through them) stay where they are.
  auto old = std::move(index_);
  index_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  shift_ = 64 - std::countr_zero(capacity);
  live_ = gone_ = 0;
  for (const Slot& s : old) {
    if (s.entry >= kGone) continue;
    std::uint64_t i = home(s.tag);
    while (index_[i].entry != kNil) i = (i + 1) & mask_;
    index_[i] = s;
    ++live_;
  }
}

void KvBlockCache::push_front(int tier, std::uint32_t i) {
  Lru& l = lru_[static_cast<std::size_t>(tier)];
  Entry& e = pool_[i];
  e.prev = kNil;
  e.next = l.head;
  if (l.head != kNil) pool_[l.head].prev = i; else l.tail = i;
  l.head = i;
  ++l.size;
}

void KvBlockCache::unlink(int tier, std::uint32_t i) {
  Lru& l = lru_[static_cast<std::size_t>(tier)];
  Entry& e = pool_[i];
  if (e.prev != kNil) pool_[e.prev].next = e.next; else l.head = e.next;
  if (e.next != kNil) pool_[e.next].prev = e.prev; else l.tail = e.prev;
  e.prev = e.next = kNil;
  --l.size;
}

long long KvBlockCache::cached_prefix(std::span<const BlockKey> keys) const {
  prefetch(keys);
  long long n = 0;
  for (BlockKey k : keys) {
    if (find(k) == kNil) break;
    ++n;
  }
  return n;
}

void KvBlockCache::evict_one(int tier) {
  const std::uint32_t victim = lru_[static_cast<std::size_t>(tier)].tail;
  unlink(tier, victim);
  --used_[static_cast<std::size_t>(tier)];
  const int below = tier + 1;
  if (below < tiers() && tiers_[static_cast<std::size_t>(below)].capacity_blocks > 0) {
    make_room(below, 1);  // evicts only from `below` and deeper: `victim` stays where it is
    pool_[victim].tier = static_cast<std::int8_t>(below);
    push_front(below, victim);
    ++used_[static_cast<std::size_t>(below)];
    ++stats_.tiers[static_cast<std::size_t>(below)].demoted_in;
  } else {
    erase(victim);
    ++stats_.tiers[static_cast<std::size_t>(tier)].dropped;
  }
}

void KvBlockCache::make_room(int tier, long long blocks) {
  const auto t = static_cast<std::size_t>(tier);
  while (used_[t] + blocks > tiers_[t].capacity_blocks && lru_[t].size > 0) evict_one(tier);
}

std::optional<KvBlockCache::Acquired> KvBlockCache::acquire(std::span<const BlockKey> keys,
                                                             long long anonymous_blocks,
                                                             std::vector<std::uint32_t>* entries,
                                                             std::span<const std::uint32_t> hints) {
  // Each key's entry: its hint where that entry is live and holds the key (keys are unique
  // in the cache, so it is the one find() would give), else looked up, every lookup's miss
  // started at once (kGone marks "look up" here).
  found_.resize(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const std::uint32_t h = j < hints.size() ? hints[j] : kNil;
    if (h < pool_.size() && pool_[h].live && pool_[h].key == keys[j]) {
      found_[j] = h;
    } else {
      found_[j] = kGone;
      __builtin_prefetch(&index_[home(hash(keys[j]))]);
    }
  }
  // Feasibility first, so a refusal changes nothing: count the HBM blocks this
  // needs and the unreferenced HBM blocks it would pin (those cannot be evicted for it).
  long long need_new = anonymous_blocks;
  long long pin_evictable_hbm = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    if (found_[j] == kGone) found_[j] = find(keys[j]);
    const std::uint32_t i = found_[j];
    if (i == kNil || pool_[i].tier != 0) {
      ++need_new;
    } else if (pool_[i].refs == 0) {
      ++pin_evictable_hbm;
    }
  }
  const long long evictable = lru_[0].size - pin_evictable_hbm;
  if (need_new > tiers_[0].capacity_blocks - used_[0] + evictable) return std::nullopt;

  Acquired out;
  out.prefix_blocks_per_tier.assign(tiers_.size(), 0);
  ++stats_.acquires;
  stats_.lookup_blocks += static_cast<long long>(keys.size());
  bool in_prefix = true;
  if (entries != nullptr) entries->resize(keys.size());
  // Pin HBM-resident hits first so that making room below cannot evict them (nothing
  // leaves the cache here: the first lookups still hold).
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const std::uint32_t i = found_[j];
    if (i != kNil && pool_[i].tier == 0 && pool_[i].refs++ == 0) unlink(0, i);
  }
  // Below, making room may drop blocks (freeing their entries for reuse): a first lookup
  // is reused only while it still names the key's entry (a live entry with the key, keys
  // being unique in the cache), and an absent key is looked up again once this call has
  // inserted (a key may repeat in `keys`).
  bool inserted = false;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const BlockKey k = keys[j];
    std::uint32_t i = found_[j];
    const bool still = i == kNil ? !inserted : pool_[i].live && pool_[i].key == k;
    if (!still) i = find(k);
    if (i == kNil) {
      in_prefix = false;
      ++stats_.miss_blocks;
      make_room(0, 1);
      const std::uint32_t fresh = insert(k);  // after make_room: it may reuse a dropped entry
      Entry& e = pool_[fresh];
      e.tier = 0;
      e.refs = 1;
      ++used_[0];
      inserted = true;
      if (entries != nullptr) (*entries)[j] = fresh;
      continue;
    }
    if (entries != nullptr) (*entries)[j] = i;
    const auto tier = static_cast<std::size_t>(static_cast<unsigned char>(pool_[i].tier));
    if (in_prefix) {
      ++out.prefix_blocks;
      ++out.prefix_blocks_per_tier[tier];
      ++stats_.tiers[tier].hit_blocks;
    } else {
      ++stats_.miss_blocks;
    }
    if (tier != 0) {
      // Lower-tier blocks are never referenced: take it out of its tier and load it back.
      unlink(static_cast<int>(tier), i);
      --used_[tier];
      ++stats_.tiers[tier].promoted_blocks;
      pool_[i].tier = 0;  // out of every LRU list: make_room cannot evict it
      pool_[i].refs = 1;
      make_room(0, 1);
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
    const std::uint32_t i = find(*r);
    if (i == kNil || pool_[i].tier != 0 || pool_[i].refs != 0) continue;
    unlink(0, i);
    --used_[0];
    pool_[i].tier = 1;  // out of every list while room is made below
    make_room(1, 1);
    push_front(1, i);
    ++used_[1];
    ++stats_.tiers[1].offloaded_in;
    ++moved;
  }
  return moved;
}

void KvBlockCache::release(std::span<const BlockKey> keys, long long anonymous_blocks,
                           std::span<const std::uint32_t> entries, std::size_t holding) {
  used_[0] -= anonymous_blocks;
  // An unreferenced block: cached (evictable) if it holds KV, else freed.
  auto unpinned = [&](std::size_t j, std::uint32_t i) {
    if (j < holding) {
      push_front(0, i);
    } else {
      erase(i);
      --used_[0];
    }
  };
  // Release tail first so the head of the prefix is the most recently used and
  // the tail is evicted first (a cached prefix stays contiguous).
  if (!entries.empty()) {
    // The entries acquire gave: pinned, so still the keys' (checked), and no lookups.
    if (entries.size() != keys.size()) throw core::Error("KV cache release with entries not matching its keys");
    for (std::size_t j = keys.size(); j-- > 0;) {
      const std::uint32_t i = entries[j];
      if (i >= pool_.size() || !pool_[i].live || pool_[i].key != keys[j] || pool_[i].refs <= 0) {
        throw core::Error("KV cache release of a block that is not held");
      }
      if (--pool_[i].refs == 0) unpinned(j, i);
    }
    return;
  }
  prefetch(keys);
  for (std::size_t j = keys.size(); j-- > 0;) {
    const std::uint32_t i = find(keys[j]);
    if (i == kNil || pool_[i].refs <= 0) throw core::Error("KV cache release of a block that is not held");
    if (--pool_[i].refs == 0) unpinned(j, i);
  }
}

}  // namespace agentsim::serving
