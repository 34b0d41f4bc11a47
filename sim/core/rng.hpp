#pragma once
// Seeded random streams. Each component asks for its own stream by name; the
// stream's state depends only on (seed, name), so adding a component never
// shifts another's numbers. Algorithms are fixed here (xoshiro256**, SplitMix64)
// so results do not depend on the standard library's distributions.
#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

namespace agentsim::core {

// Stable 64-bit seed for (seed, name): FNV-1a of the name mixed by SplitMix64.
std::uint64_t derive_seed(std::uint64_t seed, std::string_view name);

class RngStream {
 public:
  using result_type = std::uint64_t;

  RngStream(std::uint64_t seed, std::string_view name);

  // xoshiro256** (inline: hot loops draw one per event).
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n); n must be > 0. Unbiased (Lemire's method).
  std::uint64_t uniform_index(std::uint64_t n);
  // Exponential with the given mean (> 0).
  double exponential(double mean);

  // UniformRandomBitGenerator interface, for std::shuffle and the like.
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return next_u64(); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

}  // namespace agentsim::core
