#pragma once
// The processes of one sweep: MPI ranks when launched by mpirun in a build
// with MPI, else one process. Only the main thread calls into it.
#include <memory>
#include <string>
#include <vector>

namespace agentsim::exp {

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
  // Every rank's `mine`, in rank order, on every rank.
  std::vector<std::string> all_gather(const std::string& mine) const;
  // Whether this build can join MPI at all.
  static bool mpi_built();

 private:
  int rank_ = 0;
  int size_ = 1;
  bool joined_ = false;
};

}  // namespace agentsim::exp
