// The gather's round size: 16 MiB a rank, an environment override for tests, and never a
// round whose total overflows MPI's int counts. (The rounds themselves: mpi_pods_test.)
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>

#include "experiments/run/sweep_ranks.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {

struct ChunkEnv {
  explicit ChunkEnv(const char* v) {
    if (v) ::setenv("AGENTSIM_MPI_GATHER_CHUNK_BYTES", v, 1);
    else ::unsetenv("AGENTSIM_MPI_GATHER_CHUNK_BYTES");
  }
  ~ChunkEnv() { ::unsetenv("AGENTSIM_MPI_GATHER_CHUNK_BYTES"); }
};

TEST(SweepRanks, GatherRoundsStayWithinMpiIntCounts) {
  {
    ChunkEnv env(nullptr);
    EXPECT_EQ(gather_chunk_bytes(2), 16ull << 20);
    // 256 ranks x 16 MiB would be 4 GiB a round: capped so the round's total fits an int.
    EXPECT_EQ(gather_chunk_bytes(256), static_cast<std::uint64_t>(INT_MAX) / 256);
    EXPECT_LE(gather_chunk_bytes(256) * 256, static_cast<std::uint64_t>(INT_MAX));
  }
  {
    ChunkEnv env("4096");
    EXPECT_EQ(gather_chunk_bytes(3), 4096u);
  }
  {
    ChunkEnv env("99999999999");
    EXPECT_EQ(gather_chunk_bytes(2), static_cast<std::uint64_t>(INT_MAX) / 2);
  }
  for (const char* bad : {"0", "-5", "64MiB", "12x"}) {
    ChunkEnv env(bad);
    try {
      gather_chunk_bytes(2);
      ADD_FAILURE() << bad;
    } catch (const core::Error& e) {
      EXPECT_NE(std::string(e.what()).find("AGENTSIM_MPI_GATHER_CHUNK_BYTES"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("positive whole number"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace agentsim::exp
