#pragma once
// Collective algorithms as schedules: phases of concurrent point-to-point
// transfers between GPUs (global indices of a Topology). A fidelity
// (CollectiveModel) prices each phase; the schedules are shared.
#include <string>
#include <vector>

namespace agentsim::hw {

struct Transfer {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

struct Phase {
  std::vector<Transfer> transfers;  // started together; the phase ends when all finish
  int repeat = 1;                   // identical phases in a row
};

struct Schedule {
  std::string algorithm;
  std::vector<Phase> phases;
};

// `bytes` is each member's buffer (all-reduce, reduce-scatter input,
// all-gather output, all-to-all send buffer).
// Ring: 2(n-1) steps, member i sends bytes/n to member i+1.
Schedule ring_all_reduce_schedule(const std::vector<int>& group, double bytes);
// Binary tree in heap order (parent of i is (i-1)/2), not pipelined: the
// whole buffer goes up level by level, then down.
Schedule tree_all_reduce_schedule(const std::vector<int>& group, double bytes);
// Ring, n-1 steps of bytes/n.
Schedule reduce_scatter_schedule(const std::vector<int>& group, double bytes);
Schedule all_gather_schedule(const std::vector<int>& group, double bytes);
// Direct: every member sends bytes/n to every other member at once.
Schedule all_to_all_schedule(const std::vector<int>& group, double bytes);
// Intra-system ring reduce-scatter, inter-system ring all-reduce per local
// rank on bytes/g, intra-system ring all-gather. `by_system` lists each
// system's members; all must have the same size g.
Schedule hierarchical_all_reduce_schedule(const std::vector<std::vector<int>>& by_system, double bytes);
// The same two levels for a reduce-scatter (intra-system, then inter-system on bytes/g) and an
// all-gather (inter-system on bytes/g, then intra-system).
Schedule hierarchical_reduce_scatter_schedule(const std::vector<std::vector<int>>& by_system, double bytes);
Schedule hierarchical_all_gather_schedule(const std::vector<std::vector<int>>& by_system, double bytes);

}  // namespace agentsim::hw
