#include "sim/serving/kv_block_cache.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace agentsim::serving {
namespace {

std::vector<BlockKey> keys(std::uint64_t ns, std::vector<std::uint64_t> ids) { return prefix_block_keys(ns, ids); }

TEST(PrefixBlockKeys, PrefixesShareKeysAndNamespacesSeparate) {
  const auto a = keys(1, {10, 11, 12});
  const auto b = keys(1, {10, 11, 99});
  EXPECT_EQ(a[0], b[0]);
  EXPECT_EQ(a[1], b[1]);
  EXPECT_NE(a[2], b[2]);
  EXPECT_NE(keys(2, {10})[0], a[0]) << "same block id in another trace is another block";
  EXPECT_NE(keys(1, {11, 10})[1], a[1]) << "keys depend on the whole prefix";
}

TEST(KvBlockCache, ReleasedPrefixHitsOnTheNextTurn) {
  KvBlockCache c({{"hbm", 100}});
  const auto turn1 = keys(1, {1, 2, 3});
  ASSERT_TRUE(c.acquire(turn1, 2));
  EXPECT_EQ(c.used_blocks(0), 5);
  c.release(turn1, 2);
  EXPECT_EQ(c.used_blocks(0), 3) << "keyed blocks stay cached, anonymous ones are freed";
  const auto turn2 = keys(1, {1, 2, 3, 4});
  const auto got = c.acquire(turn2, 0);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->prefix_blocks, 3);
  EXPECT_EQ(got->prefix_blocks_per_tier[0], 3);
  EXPECT_EQ(c.stats().miss_blocks, 3 + 1);
}

TEST(KvBlockCache, EvictsLeastRecentlyReleasedTailFirst) {
  KvBlockCache c({{"hbm", 4}});
  const auto a = keys(1, {1, 2, 3});
  ASSERT_TRUE(c.acquire(a, 0));
  c.release(a, 0);
  const auto b = keys(2, {1, 2});
  ASSERT_TRUE(c.acquire(b, 0));  // needs 2, 1 free: evicts a's tail block only
  EXPECT_EQ(c.cached_prefix(a), 2);
  EXPECT_EQ(c.stats().tiers[0].dropped, 1);
}

TEST(KvBlockCache, EvictionDemotesToHostAndHitsLoadBack) {
  KvBlockCache c({{"hbm", 3}, {"host", 10}});
  const auto a = keys(1, {1, 2, 3});
  const auto b = keys(2, {1, 2, 3});
  ASSERT_TRUE(c.acquire(a, 0));
  c.release(a, 0);
  ASSERT_TRUE(c.acquire(b, 0));
  EXPECT_EQ(c.used_blocks(1), 3);
  EXPECT_EQ(c.stats().tiers[1].demoted_in, 3);
  c.release(b, 0);
  const auto got = c.acquire(a, 0);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->prefix_blocks, 3);
  EXPECT_EQ(got->prefix_blocks_per_tier[1], 3) << "found in host memory";
  EXPECT_EQ(c.stats().tiers[1].promoted_blocks, 3);
  EXPECT_EQ(c.used_blocks(0), 3);
  EXPECT_EQ(c.used_blocks(1), 3) << "b went down as a came up";
  EXPECT_EQ(c.cached_prefix(b), 3);
}

TEST(KvBlockCache, LastTierDrops) {
  KvBlockCache c({{"hbm", 2}, {"host", 1}});
  const auto a = keys(1, {1, 2});
  ASSERT_TRUE(c.acquire(a, 0));
  c.release(a, 0);
  ASSERT_TRUE(c.acquire(keys(2, {1, 2}), 0));
  EXPECT_EQ(c.used_blocks(1), 1);
  EXPECT_EQ(c.stats().tiers[1].dropped, 1);
  EXPECT_EQ(c.cached_prefix(a), 1) << "the head block survived in host memory";
}

TEST(KvBlockCache, RefusalChangesNothingAndPinnedBlocksStay) {
  KvBlockCache c({{"hbm", 4}});
  const auto held = keys(1, {1, 2, 3});
  ASSERT_TRUE(c.acquire(held, 0));
  const auto before = c.stats().acquires;
  EXPECT_FALSE(c.acquire(keys(2, {1, 2}), 0));
  EXPECT_FALSE(c.acquire({}, 2));
  EXPECT_EQ(c.used_blocks(0), 3);
  EXPECT_EQ(c.stats().acquires, before);
  EXPECT_TRUE(c.acquire({}, 1));
  EXPECT_EQ(c.cached_prefix(held), 3);
  EXPECT_EQ(c.referenced_hbm_blocks(), 4);
}

TEST(KvBlockCache, SharedPrefixIsReferenceCounted) {
  KvBlockCache c({{"hbm", 4}});
  const auto a = keys(1, {1, 2});
  ASSERT_TRUE(c.acquire(a, 0));
  ASSERT_TRUE(c.acquire(a, 0));  // a second sequence on the same prefix
  EXPECT_EQ(c.used_blocks(0), 2);
  c.release(a, 0);
  EXPECT_EQ(c.referenced_hbm_blocks(), 2) << "still held by the other sequence";
  c.release(a, 0);
  EXPECT_EQ(c.referenced_hbm_blocks(), 0);
  EXPECT_THROW(c.release(a, 0), core::Error);
}

// A sequence released mid-prefill (a preemption) holds KV only in the blocks it computed:
// the rest, allocated but never written, leave the cache unless another sequence holds them.
TEST(KvBlockCache, BlocksNeverComputedLeaveTheCacheOnRelease) {
  for (bool by_entries : {false, true}) {
    KvBlockCache c({{"hbm", 10}});
    const auto a = keys(1, {1, 2, 3, 4});
    std::vector<std::uint32_t> entries;
    ASSERT_TRUE(c.acquire(a, 1, by_entries ? &entries : nullptr));
    const auto b = keys(1, {1, 2, 3});  // another sequence sharing three of a's blocks
    ASSERT_TRUE(c.acquire(b, 0));
    EXPECT_EQ(c.used_blocks(0), 5);
    c.release(a, 1, entries, 2);  // a computed its first two blocks
    EXPECT_EQ(c.used_blocks(0), 3) << "block 4 (never computed, unshared) and the anonymous one are freed";
    EXPECT_EQ(c.referenced_hbm_blocks(), 3) << "b still holds blocks 1-3";
    c.release(b, 0);
    EXPECT_EQ(c.cached_prefix(a), 3) << "blocks 1-3 cached (b computed block 3), block 4 gone";
  }
}

// Hints are only guesses: a cache given right, stale (the entry since dropped and reused for
// another block) or nonsense hints ends every acquire exactly as one given none, in its result,
// its entries, its stats and what it holds.
TEST(KvBlockCache, HintsNeverChangeWhatAcquireDoes) {
  KvBlockCache plain({{"hbm", 6}, {"host", 3}});
  KvBlockCache hinted({{"hbm", 6}, {"host", 3}});
  std::vector<std::uint32_t> last;  // the hinted cache's entries from its previous acquire
  const std::vector<std::vector<std::uint64_t>> turns = {
      {1, 2, 3}, {1, 2, 3, 4}, {7, 8, 9, 10, 11}, {1, 2, 3, 4, 5}, {7, 8, 9}, {20, 21, 22, 23}, {1, 2}};
  int stale = 0;
  for (std::size_t t = 0; t < turns.size(); ++t) {
    const auto k = keys(1, turns[t]);
    std::vector<std::uint32_t> hints = last;
    if (t == 5) hints = {0, 1, 2, 999999, 0xffffffffU};  // nonsense
    for (std::size_t j = 0; j < hints.size() && j < k.size(); ++j) stale += hints[j] != 0xffffffffU;
    std::vector<std::uint32_t> e_plain, e_hinted;
    const auto a = plain.acquire(k, 1, &e_plain);
    const auto b = hinted.acquire(k, 1, &e_hinted, hints);
    ASSERT_EQ(a.has_value(), b.has_value()) << "turn " << t;
    if (!a) continue;
    EXPECT_EQ(a->prefix_blocks, b->prefix_blocks) << "turn " << t;
    EXPECT_EQ(a->prefix_blocks_per_tier, b->prefix_blocks_per_tier) << "turn " << t;
    EXPECT_EQ(e_plain, e_hinted) << "turn " << t;
    EXPECT_EQ(plain.stats().miss_blocks, hinted.stats().miss_blocks) << "turn " << t;
    EXPECT_EQ(plain.stats().tiers[1].hit_blocks, hinted.stats().tiers[1].hit_blocks) << "turn " << t;
    EXPECT_EQ(plain.used_blocks(0), hinted.used_blocks(0)) << "turn " << t;
    EXPECT_EQ(plain.used_blocks(1), hinted.used_blocks(1)) << "turn " << t;
    plain.release(k, 1, e_plain);
    hinted.release(k, 1, e_hinted);
    last = e_hinted;
  }
  EXPECT_GT(stale, 10) << "the sequence must exercise hints";
  EXPECT_GT(hinted.stats().tiers[0].dropped + hinted.stats().tiers[1].dropped, 0) << "and entries dropped and reused";
}

}  // namespace
}  // namespace agentsim::serving
