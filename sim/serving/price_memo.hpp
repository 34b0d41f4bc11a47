#pragma once
// The last price of every op and collective position of a step's visit, kept by a
// caller that prices many steps of one StepCoster (a replica, a decode segment).
// Consecutive steps mostly differ only in attention: a position that sees the same
// inputs again, bit for bit, reuses its price. Pricing is a pure function of those
// inputs, so the result is the same to the bit; the memo only saves the lookups.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwmodels/roofline.hpp"

namespace agentsim::serving {

class PriceMemo {
 public:
  // An op's inputs: its id, format, layers, amounts, launch floor and the step's token counts.
  using OpKey = std::array<double, 16>;
  struct OpPrice {
    double e_compute = 0, e_memory = 0;
    hw::OpTime time;
  };
  // A collective's inputs: kind, group, payload.
  using CollectiveKey = std::array<double, 3>;
  struct CollectivePrice {
    double latency_s = 0, transfer_s = 0;
    bool measured = false;
  };

  // Starts a step priced by the step-cost tables `pricer` (their identity: a key holds no model,
  // system or options, so prices kept for other tables are dropped); positions count from the
  // step's first op and collective again.
  void begin_step(std::uint64_t pricer) {
    if (pricer != pricer_) {
      ops_.clear();
      collectives_.clear();
      pricer_ = pricer;
    }
    next_op_ = next_collective_ = 0;
  }

  // The price kept for the next op position if it had `key`, else null (the caller prices
  // it and keeps it with keep_op).
  const OpPrice* op(const OpKey& key) { return find(ops_, next_op_, key); }
  void keep_op(const OpKey& key, const OpPrice& p) { keep(ops_, next_op_, key, p); }
  const CollectivePrice* collective(const CollectiveKey& key) { return find(collectives_, next_collective_, key); }
  void keep_collective(const CollectiveKey& key, const CollectivePrice& p) {
    keep(collectives_, next_collective_, key, p);
  }

  long long hits() const { return hits_; }
  long long misses() const { return misses_; }

 private:
  // Equal bit for bit (-0.0 is not 0.0, a NaN equals itself): branch-free, inlined.
  template <std::size_t N>
  static bool same_bits(const std::array<double, N>& a, const std::array<double, N>& b) {
    std::uint64_t diff = 0;
    for (std::size_t i = 0; i < N; ++i) diff |= std::bit_cast<std::uint64_t>(a[i]) ^ std::bit_cast<std::uint64_t>(b[i]);
    return diff == 0;
  }
  template <class Key, class Price>
  struct Slot {
    Key key{};
    Price price{};
    bool set = false;
  };
  // find() looks at the position it is at; keep() stores there; both leave it on the next.
  template <class Key, class Price>
  const Price* find(std::vector<Slot<Key, Price>>& slots, std::size_t& at, const Key& key) {
    if (at < slots.size() && slots[at].set && same_bits(slots[at].key, key)) {
      ++hits_;
      return &slots[at++].price;
    }
    ++misses_;
    return nullptr;
  }
  template <class Key, class Price>
  static void keep(std::vector<Slot<Key, Price>>& slots, std::size_t& at, const Key& key, const Price& p) {
    if (at >= slots.size()) slots.resize(at + 1);
    slots[at] = Slot<Key, Price>{key, p, true};
    ++at;
  }

  std::vector<Slot<OpKey, OpPrice>> ops_;
  std::vector<Slot<CollectiveKey, CollectivePrice>> collectives_;
  std::size_t next_op_ = 0, next_collective_ = 0;
  std::uint64_t pricer_ = 0;  // 0: none yet (tables count from 1)
  long long hits_ = 0, misses_ = 0;
};

}  // namespace agentsim::serving
