#include "hwmodels/collective.hpp"

namespace agentsim::hw {

namespace {

CollectiveTime ring(double bytes, int n, double bw_Bps, double latency_s, double passes) {
  CollectiveTime t;
  if (n <= 1 || bytes <= 0) return t;
  const double steps = passes * (n - 1);
  t.latency_s = steps * latency_s;
  t.transfer_s = steps * (bytes / n) / bw_Bps;
  return t;
}

}  // namespace

CollectiveTime ring_all_reduce(double bytes, int n, double bw_Bps, double latency_s) {
  return ring(bytes, n, bw_Bps, latency_s, 2);
}

CollectiveTime ring_reduce_scatter(double bytes, int n, double bw_Bps, double latency_s) {
  return ring(bytes, n, bw_Bps, latency_s, 1);
}

}  // namespace agentsim::hw
