#include "sim/serving/kv_block_cache.hpp"

#include <algorithm>
#include <bit>

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
  rebuild(16);
}

std::uint64_t KvBlockCache::home(BlockKey k) const {
  // Fibonacci hashing: keys are well mixed already, but tests and callers may pass small ones.
  return (k * 0x9e3779b97f4a7c15ULL) >> shift_;
}

void KvBlockCache::prefetch(std::span<const BlockKey> keys) const {
  // The table is far larger than the caches: start every key's miss at once rather than
  // one after another.
  for (BlockKey k : keys) __builtin_prefetch(&table_[home(k)]);
}

std::uint32_t KvBlockCache::find(BlockKey k) const {
  std::uint64_t i = home(k);
  while (true) {
    const Entry& e = table_[i];
    if (e.state == State::kEmpty) return kNil;
    if (e.state == State::kLive && e.key == k) return static_cast<std::uint32_t>(i);
    i = (i + 1) & mask_;
  }
}

std::uint32_t KvBlockCache::insert(BlockKey k) {
  // Keep probe chains short: at most 70% of the entries live or tombstoned.
  if (10 * (live_ + gone_ + 1) > 7 * table_.size()) {
    std::size_t cap = table_.size();
    while (10 * (live_ + 1) > 4 * cap) cap *= 2;  // after a rebuild at most 40% live
    rebuild(cap);
  }
  std::uint64_t i = home(k);
  while (table_[i].state == State::kLive) i = (i + 1) & mask_;
  Entry& e = table_[i];
  if (e.state == State::kGone) --gone_;
  e = Entry{};
  e.key = k;
  e.state = State::kLive;
  ++live_;
  return static_cast<std::uint32_t>(i);
}

void KvBlockCache::erase(std::uint32_t i) {
  --live_;
  // A tombstone keeps later entries of the probe chain reachable; when the next entry is
  // empty no chain runs through here, and the tombstones just before can go too.
  if (table_[(i + 1) & mask_].state != State::kEmpty) {
    table_[i].state = State::kGone;
    ++gone_;
    return;
  }
  table_[i].state = State::kEmpty;
  std::uint64_t j = (i + mask_) & mask_;
  while (table_[j].state == State::kGone) {
    table_[j].state = State::kEmpty;
    --gone_;
    j = (j + mask_) & mask_;
  }
}

void KvBlockCache::rebuild(std::size_t capacity) {
  std::vector<Entry> old = std::move(table_);
  table_.assign(capacity, Entry{});
  mask_ = capacity - 1;
  shift_ = 64 - std::countr_zero(capacity);
  live_ = gone_ = 0;
  ++rebuilds_;
  // Two sequential passes over the old table (not a walk along the LRU lists, which
  // visits entries in random order): place every live entry, then translate its LRU
  // links and each list's ends through the old -> new positions. Lists keep their order.
  std::vector<std::uint32_t> moved(old.size(), kNil);
  for (std::size_t j = 0; j < old.size(); ++j) {
    if (old[j].state != State::kLive) continue;
    std::uint64_t i = home(old[j].key);
    while (table_[i].state != State::kEmpty) i = (i + 1) & mask_;
    table_[i] = old[j];
    moved[j] = static_cast<std::uint32_t>(i);
    ++live_;
  }
  auto to_new = [&moved](std::uint32_t j) { return j == kNil ? kNil : moved[j]; };
  for (Entry& e : table_) {
    if (e.state != State::kLive) continue;
    e.prev = to_new(e.prev);
    e.next = to_new(e.next);
  }
  for (Lru& l : lru_) {
    l.head = to_new(l.head);
    l.tail = to_new(l.tail);
  }
}

void KvBlockCache::push_front(int tier, std::uint32_t i) {
  Lru& l = lru_[static_cast<std::size_t>(tier)];
  Entry& e = table_[i];
  e.prev = kNil;
  e.next = l.head;
  if (l.head != kNil) table_[l.head].prev = i; else l.tail = i;
  l.head = i;
  ++l.size;
}

void KvBlockCache::unlink(int tier, std::uint32_t i) {
  Lru& l = lru_[static_cast<std::size_t>(tier)];
  Entry& e = table_[i];
  if (e.prev != kNil) table_[e.prev].next = e.next; else l.head = e.next;
  if (e.next != kNil) table_[e.next].prev = e.prev; else l.tail = e.prev;
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
    table_[victim].tier = static_cast<std::int8_t>(below);
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
                                                             long long anonymous_blocks) {
  // Feasibility first, so a refusal changes nothing: count the HBM blocks this
  // needs and the unreferenced HBM blocks it would pin (those cannot be evicted for it).
  long long need_new = anonymous_blocks;
  long long pin_evictable_hbm = 0;
  prefetch(keys);
  found_.resize(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const std::uint32_t i = find(keys[j]);
    found_[j] = i;
    if (i == kNil || table_[i].tier != 0) {
      ++need_new;
    } else if (table_[i].refs == 0) {
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
  // Pin HBM-resident hits first so that making room below cannot evict them (nothing
  // moves or leaves the table here: the first lookups still hold).
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const std::uint32_t i = found_[j];
    if (i != kNil && table_[i].tier == 0 && table_[i].refs++ == 0) unlink(0, i);
  }
  // Below, making room may drop blocks and an insert may rebuild the table: a first
  // lookup is reused only while it still names the key's entry (a live entry with the
  // key, keys being unique in the table, and no rebuild since), and an absent key is
  // looked up again once this call has inserted (a key may repeat in `keys`).
  const std::uint64_t rebuilds_at = rebuilds_;
  bool inserted = false;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const BlockKey k = keys[j];
    std::uint32_t i = found_[j];
    const bool still = rebuilds_ == rebuilds_at &&
                       (i == kNil ? !inserted : table_[i].state == State::kLive && table_[i].key == k);
    if (!still) i = find(k);
    if (i == kNil) {
      in_prefix = false;
      ++stats_.miss_blocks;
      make_room(0, 1);
      Entry& e = table_[insert(k)];  // after make_room: insert may rebuild the table
      e.tier = 0;
      e.refs = 1;
      ++used_[0];
      inserted = true;
      continue;
    }
    const auto tier = static_cast<std::size_t>(static_cast<unsigned char>(table_[i].tier));
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
      table_[i].tier = 0;  // out of every LRU list: make_room cannot evict it
      table_[i].refs = 1;
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
    if (i == kNil || table_[i].tier != 0 || table_[i].refs != 0) continue;
    unlink(0, i);
    --used_[0];
    table_[i].tier = 1;  // out of every list while room is made below
    make_room(1, 1);
    push_front(1, i);
    ++used_[1];
    ++stats_.tiers[1].offloaded_in;
    ++moved;
  }
  return moved;
}

void KvBlockCache::release(std::span<const BlockKey> keys, long long anonymous_blocks) {
  used_[0] -= anonymous_blocks;
  prefetch(keys);
  // Release tail first so the head of the prefix is the most recently used and
  // the tail is evicted first (a cached prefix stays contiguous).
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    const std::uint32_t i = find(*k);
    if (i == kNil || table_[i].refs <= 0) throw core::Error("KV cache release of a block that is not held");
    if (--table_[i].refs == 0) push_front(0, i);
  }
}

}  // namespace agentsim::serving
