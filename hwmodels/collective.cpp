#include "hwmodels/collective.hpp"

namespace agentsim::hw {

CollectiveTime ring_all_reduce(double bytes, int n, double bw_Bps, double latency_s) {
  CollectiveTime t;
  if (n <= 1 || bytes <= 0) return t;
  const double steps = 2.0 * (n - 1);
  t.latency_s = steps * latency_s;
  t.transfer_s = steps * (bytes / n) / bw_Bps;
  return t;
}

}  // namespace agentsim::hw
