#pragma once
// Peak memory of `agentsim run` estimated before simulating, so an experiment too
// big for the machine fails early with a reason instead of being killed by the OS.
//
// Formula (bytes; D = warmup + window, W = window, per point = one plan x level):
//   peak = base + trace + min(threads, points) x max_point(sim) + sum_points(kept) + output
//   trace      = the loaded sessions, counted exactly (Session, Turn, BlockRun, ids)
//   sim        = kv + agents + recorder, per point:
//     kv       = replicas x min(KV capacity of all tiers in blocks, keyed blocks of the trace)
//                x kBytesPerCachedBlock (open-addressing table entry, measured)
//     agents   = in-flight sessions x (kBytesPerAgent + mean prompt blocks x 8 B of block keys)
//     recorder = R x sizeof(RequestRecord) + S x sizeof(StepRecord), where
//                R = agents x D / (mean gap + mean output tokens x step floor)   (closed loop)
//                S = min(replicas x D / step floor, R x (mean output + prompt chunks))
//                step floor = max(serving.step_overhead, 1 ms)
//   kept       = (R + S) x W / D x record sizes, held for every point until the sinks run
//                (requests/steps only if recorded); x 2 under MPI (packed + gathered copies)
//   output     = 2 x the largest point's kept tables (results.h5 columns and row buffer)
// R and S bound what a point can produce (every agent turn at the fastest step), so
// the estimate errs high; the constants were measured (tests/experiments/run/memory_estimate_test.cpp).
#include <string>
#include <vector>

#include "experiments/config/experiment.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

namespace memory_constants {
// Heap per cached KV block: one 24-B entry of an open-addressing table kept 35-70% full
// (34-69 B per block), checked against mallinfo2 in tests/experiments/run/memory_estimate_test.cpp.
inline constexpr double kBytesPerCachedBlock = 64;
// Per in-flight session: driver agent state, serving Request, replica slot, small vectors.
inline constexpr double kBytesPerAgent = 1024;
// Resident size before any run: binary, libraries (MPI, HDF5), catalogs: /usr/bin/time -v
// measured 228 MB for `agentsim describe slo` and 234 MB for a 16-agent, 330 s run.
inline constexpr double kBaseBytes = 230e6;
// Peak bytes while loading a trace file, per byte on disk (parse buffers, a JSON document
// tree, then the sessions). Measured as peak RSS over the 228 MB baseline for `agentsim trace
// stats`: Claude Code requests.csv 5.8 MB -> 20 MB (3.5x), Mooncake conversation JSONL 3.0 MB
// -> 13 MB (4.3x), a raw Claude Code JSON 2.6 MB -> 12.7 MB (4.9x); 8 leaves headroom.
inline constexpr double kTraceLoadBytesPerFileByte = 8;
// The same for the binary (HDF5) trace form, which is compressed: assumed 40, from the full
// Claude Code trace being 0.74 MB as HDF5 against 5.8 MB as CSV (7.9x) times the CSV's 4.9x.
inline constexpr double kTraceLoadBytesPerH5Byte = 40;
}  // namespace memory_constants

struct MemoryComponent {
  std::string name;    // e.g. "recorded steps"
  double bytes = 0;
  std::string detail;  // how it was counted, e.g. "4 replicas x 12,000 blocks x 64 B"
};

struct MemoryEstimate {
  double total_bytes = 0;
  std::vector<MemoryComponent> components;  // largest first
};

// The estimate for running `e` over `sessions` with `threads` workers per process and `ranks` processes.
MemoryEstimate estimate_memory(const Experiment& e, const wl::Trace& sessions, int threads, int ranks);

// Peak bytes of loading `e`'s trace file, bounded from its size on disk before reading it
// (a folder of files counts them all); 0 for the generator or when the file is missing.
MemoryComponent trace_load_bytes(const Experiment& e);

// Bytes the loaded trace occupies (exact, from the containers' sizes).
double trace_bytes(const wl::Trace& sessions);

// The memory this process may use: min of /proc/meminfo MemAvailable, the cgroup v2
// memory.max (if set) and `limit_bytes` (if > 0); `source` names the binding one.
double available_memory_bytes(double limit_bytes, const std::string& limit_name, std::string& source);

// Throws core::Error (at `e.file`, key limits.memory) naming the estimate, its largest
// components, the limit and what to change when `est` exceeds `available_bytes`.
void check_memory(const Experiment& e, const MemoryEstimate& est, double available_bytes, const std::string& source);

}  // namespace agentsim::exp
