#include "sim/core/parallel_for.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::core {
namespace {

std::vector<std::uint64_t> results(int threads) {
  std::vector<std::uint64_t> out(64);
  parallel_for(out.size(), threads, [&](std::size_t i) {
    RngStream r(99, "task/" + std::to_string(i));
    std::uint64_t acc = 0;
    for (int k = 0; k < 1000; ++k) acc ^= r.next_u64();
    out[i] = acc;
  });
  return out;
}

TEST(ParallelFor, EachIndexOnceAndResultsIndependentOfThreadCount) {
  std::vector<std::atomic<int>> hits(1000);
  parallel_for(hits.size(), 4, [&](std::size_t i) { hits[i].fetch_add(1); });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  const auto one = results(1);
  EXPECT_EQ(one, results(2));
  EXPECT_EQ(one, results(8));
}

TEST(ParallelFor, RethrowsTheTaskError) {
  EXPECT_THROW(parallel_for(100, 3, [](std::size_t i) {
                 if (i == 37) throw std::runtime_error("boom");
               }),
               std::runtime_error);
  EXPECT_THROW(parallel_for(5, 1, [](std::size_t i) {
                 if (i == 2) throw std::runtime_error("boom");
               }),
               std::runtime_error);
}

}  // namespace
}  // namespace agentsim::core
