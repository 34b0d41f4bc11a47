#pragma once
// Max-min fair sharing of link bandwidth among concurrent flows that all
// start at time 0: when a flow finishes, the others' rates are recomputed.
#include <vector>

namespace agentsim::hw {

struct Flow {
  std::vector<int> links;  // directed-link ids the flow crosses
  double bytes = 0;
};

// Completion time of each flow (seconds after the start). `link_bw_Bps[id]`
// is each link's capacity. A flow with no links or no bytes finishes at 0.
std::vector<double> max_min_fair_completion(const std::vector<Flow>& flows,
                                            const std::vector<double>& link_bw_Bps);

}  // namespace agentsim::hw
