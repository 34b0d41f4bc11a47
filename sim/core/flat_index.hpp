#pragma once
// A map from 64-bit keys to dense indices 0, 1, 2, ... in insertion order, in one
// open-addressing table (linear probing, no deletion): one cache line per lookup
// where a node-based map chases two or three pointers. Callers keep the values in a
// vector indexed by what this returns.
#include <cstdint>
#include <vector>

namespace agentsim::core {

class FlatIndex {
 public:
  static constexpr std::uint32_t kAbsent = 0xffffffffU;

  FlatIndex() : slots_(16) {}
  // The index of `key`, or kAbsent.
  std::uint32_t find(std::uint64_t key) const {
    for (std::uint64_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.index == kAbsent) return kAbsent;
      if (s.key == key) return s.index;
    }
  }
  // The index of `key`, giving it the next one (size() before the call) when absent.
  std::uint32_t find_or_add(std::uint64_t key) {
    std::uint64_t i = home(key);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.index == kAbsent) break;
      if (s.key == key) return s.index;
    }
    if (2 * (size_ + 1) > slots_.size()) {  // at most half full
      grow();
      return find_or_add(key);
    }
    slots_[i] = Slot{key, size_};
    return size_++;
  }
  std::uint32_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t index = kAbsent;
  };
  std::uint64_t home(std::uint64_t key) const {
    // Fibonacci hashing spreads sequential keys (agent ids) over the table.
    return (key * 0x9e3779b97f4a7c15ULL) >> (64 - bits_);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    ++bits_;
    for (const Slot& s : old) {
      if (s.index == kAbsent) continue;
      std::uint64_t i = home(s.key);
      while (slots_[i].index != kAbsent) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  int bits_ = 4;
  std::uint32_t size_ = 0;
};

}  // namespace agentsim::core
