#pragma once
// Alpha-beta cost of collectives over a group of accelerators in one
// scale-up domain.
namespace agentsim::hw {

struct CollectiveTime {
  double latency_s = 0;    // alpha terms: hops x per-hop latency
  double transfer_s = 0;   // beta terms: bytes on the bottleneck link / bandwidth
  double total_s() const { return latency_s + transfer_s; }
};

// Ring all-reduce of `bytes` (each member's buffer) over `n` members whose
// links give `bw_Bps` per direction and `latency_s` per hop:
// 2(n-1) steps, each moving bytes/n. n == 1 costs nothing.
CollectiveTime ring_all_reduce(double bytes, int n, double bw_Bps, double latency_s);
// Ring reduce-scatter of `bytes` (each member's input buffer), or all-gather of `bytes` (each
// member's output buffer): either half of the ring all-reduce, n-1 steps of bytes/n.
CollectiveTime ring_reduce_scatter(double bytes, int n, double bw_Bps, double latency_s);

}  // namespace agentsim::hw
