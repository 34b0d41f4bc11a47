#pragma once
// Runs independent tasks (each yielding some runs) sharded over MPI ranks
// (task i on rank i mod size) and each rank's threads, and gathers every
// task's runs, in task order, on every rank: the result never depends on the
// rank or thread count. Finished runs are kept for --resume when asked, one
// checksummed file per run renamed into place whole, so a kill never leaves a
// partial one (see cached_run).
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/run/sweep_ranks.hpp"
#include "experiments/run/sweep.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {

struct ExecOptions {
  int threads = 1;
  bool progress = false;   // draw a progress bar on stderr (rank 0 only)
  std::string cache_dir;   // where finished runs are kept for --resume (empty = nowhere)
  long long stop_after = -1;  // stop (SweepInterrupted) before the run after this many new runs; < 0 = never
  std::shared_ptr<std::atomic<long long>> new_runs = std::make_shared<std::atomic<long long>>(0);
  std::shared_ptr<std::atomic<long long>> reused_runs = std::make_shared<std::atomic<long long>>(0);
};

// Thrown when ExecOptions::stop_after is reached: the finished runs stay in the cache for --resume.
struct SweepInterrupted : core::Error {
  using core::Error::Error;
};

using RunTask = std::function<std::vector<RunResult>(std::size_t)>;

std::vector<std::vector<RunResult>> run_sharded(std::size_t tasks, const RunTask& task, const ExecOptions& opt,
                                                const SweepRanks& ranks, const std::string& label);

// The runs of `points`, in point order, on every rank. When the experiment has serving.pods > 1
// and several ranks, each run's pods are tasks of their own (pod q of the i-th new run is task
// i x pods + q), sharded over the ranks and each rank's threads, gathered and merged in pod
// order on every rank, so outputs are byte-identical for any rank and thread count. Otherwise
// each run is one task (run_sharded over cached_run). Kept runs (--resume) are reused either way.
std::vector<RunResult> run_points(const Experiment& e, const wl::Trace& sessions, const std::vector<SweepPoint>& points,
                                  const ExecOptions& opt, const SweepRanks& ranks, const std::string& label);

// run_sweep_point, or the kept result of an earlier, interrupted invocation of the same experiment.
RunResult cached_run(const Experiment& e, const wl::Trace& sessions, const SweepPoint& p, const ExecOptions& opt);

// The run kept in `path` by cached_run; nullopt when the file is missing, torn, corrupted
// or of another format version (the run is then simply rerun).
std::optional<RunResult> read_kept_run(const std::string& path);

// Removes the dot-named temp files (".NAME.tmp.PID.N", core::write_atomically) a killed
// process left in `dir`; returns how many. A missing folder holds none.
std::size_t remove_temp_files(const std::string& dir);

}  // namespace agentsim::exp
