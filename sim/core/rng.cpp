#include "sim/core/rng.hpp"

#include <cmath>

namespace agentsim::core {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension, for Lemire's method

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  std::uint64_t x = seed ^ rotl(h, 17);
  return splitmix64(x);
}

RngStream::RngStream(std::uint64_t seed, std::string_view name) {
  std::uint64_t x = derive_seed(seed, name);
  for (auto& w : s_) w = splitmix64(x);
}

std::uint64_t RngStream::uniform_index(std::uint64_t n) {
  u128 m = static_cast<u128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<u128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double RngStream::exponential(double mean) { return -mean * std::log1p(-uniform()); }

}  // namespace agentsim::core
