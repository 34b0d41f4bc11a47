#pragma once
// The processes of one sweep: MPI ranks when launched by mpirun in a build
// with MPI, else one process. Only the main thread calls into it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace agentsim::exp {

// Bytes of each rank's share one round of SweepRanks::all_gather moves: 16 MiB, or the environment's
// AGENTSIM_MPI_GATHER_CHUNK_BYTES (a test knob), within what keeps a round under MPI's int counts.
std::uint64_t gather_chunk_bytes(int ranks);

class SweepRanks {
 public:
  // Joins MPI when the environment says mpirun started us (and MPI is built in);
  // otherwise one rank. Finalizes MPI on destruction.
  SweepRanks();
  ~SweepRanks();
  SweepRanks(const SweepRanks&) = delete;
  SweepRanks& operator=(const SweepRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank's `mine`, in rank order, on every rank; any size (exchanged in rounds of at most
  // gather_chunk_bytes() a rank, so MPI's int counts never overflow).
  std::vector<std::string> all_gather(const std::string& mine) const;
  // Whether this build can join MPI at all.
  static bool mpi_built();

 private:
  int rank_ = 0;
  int size_ = 1;
  bool joined_ = false;
};

}  // namespace agentsim::exp
