#include "experiments/run/sweep_ranks.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "sim/core/error.hpp"

#ifdef AGENTSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace agentsim::exp {

namespace {

// Set by OpenMPI's and PMIx launchers for each rank; absent in a plain start, where
// joining MPI would only slow down and (as root) refuse.
bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_SIZE") != nullptr;
}

}  // namespace

bool SweepRanks::mpi_built() {
#ifdef AGENTSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

SweepRanks::SweepRanks() {
#ifdef AGENTSIM_HAVE_MPI
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  joined_ = true;
#else
  if (launched_by_mpirun()) {
    throw core::Error("started by mpirun, but this agentsim was built without MPI (install libopenmpi-dev and rebuild)");
  }
#endif
}

SweepRanks::~SweepRanks() {
#ifdef AGENTSIM_HAVE_MPI
  if (joined_) MPI_Finalize();
#endif
}

std::uint64_t gather_chunk_bytes(int ranks) {
  // Each round of the gather moves at most this much of each rank's bytes, so a round's total
  // stays within MPI's int counts (2^31 - 1) for any rank count; 16 MiB keeps its buffer small.
  std::uint64_t chunk = 16ull << 20;
  if (const char* env = std::getenv("AGENTSIM_MPI_GATHER_CHUNK_BYTES"); env != nullptr && *env != '\0') {
    const std::string text(env);
    const bool digits = text.size() <= 19 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const unsigned long long v = digits ? std::stoull(text) : 0;
    if (v == 0) {
      throw core::Error(core::SourceLocation{"environment", 0, "AGENTSIM_MPI_GATHER_CHUNK_BYTES"},
                        "expected a positive whole number of bytes, found '" + std::string(env) + "'");
    }
    chunk = v;
  }
  return std::min<std::uint64_t>(chunk, static_cast<std::uint64_t>(INT_MAX) / static_cast<std::uint64_t>(std::max(1, ranks)));
}

std::vector<std::string> SweepRanks::all_gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
#ifdef AGENTSIM_HAVE_MPI
  const auto ranks = static_cast<std::size_t>(size_);
  const unsigned long long n = mine.size();
  std::vector<unsigned long long> sizes(ranks);
  MPI_Allgather(&n, 1, MPI_UNSIGNED_LONG_LONG, sizes.data(), 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
  std::vector<std::string> out(ranks);
  unsigned long long longest = 0;
  for (std::size_t i = 0; i < ranks; ++i) {
    out[i].resize(static_cast<std::size_t>(sizes[i]));
    longest = std::max(longest, sizes[i]);
  }
  // In rounds of at most `chunk` bytes a rank, written straight into each rank's string.
  const std::uint64_t chunk = gather_chunk_bytes(size_);
  std::vector<int> counts(ranks), offsets(ranks);
  std::string round;
  for (unsigned long long done = 0; done < longest; done += chunk) {
    int total = 0;
    for (std::size_t i = 0; i < ranks; ++i) {
      counts[i] = static_cast<int>(sizes[i] > done ? std::min<unsigned long long>(chunk, sizes[i] - done) : 0);
      offsets[i] = total;
      total += counts[i];
    }
    round.resize(static_cast<std::size_t>(total));
    const std::size_t from = static_cast<std::size_t>(std::min(done, n));
    MPI_Allgatherv(mine.data() + from, counts[static_cast<std::size_t>(rank_)], MPI_CHAR, round.data(), counts.data(),
                   offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < ranks; ++i) {
      if (counts[i] > 0) std::memcpy(out[i].data() + done, round.data() + offsets[i], static_cast<std::size_t>(counts[i]));
    }
  }
  return out;
#else
  return {mine};
#endif
}

}  // namespace agentsim::exp
