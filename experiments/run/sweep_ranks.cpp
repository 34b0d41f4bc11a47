#include "experiments/run/sweep_ranks.hpp"

#include <cstdlib>

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

std::vector<std::string> SweepRanks::all_gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
#ifdef AGENTSIM_HAVE_MPI
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(size_));
  MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> offsets(sizes.size());
  long long total = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    offsets[i] = static_cast<int>(total);
    total += sizes[i];
  }
  if (total > 2'000'000'000LL) throw core::Error("MPI gather over 2 GB: record fewer per-step tables");
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i])));
  }
  return out;
#else
  return {mine};
#endif
}

}  // namespace agentsim::exp
