#pragma once
// How much of a step's Engram host-link transfer stays exposed: the one formula
// the step-cost engine (step_coster.cpp) applies.
#include <algorithm>
#include <cstddef>
#include <span>

namespace agentsim::serving {

// `bytes`: Engram rows one device reads over its host link this step; `bw_Bps` and
// `latency_s`: that link's per-GPU share and latency; `engram_layers`: the layers that
// read the tables (0-based, ascending; empty: one read at layer 0); `layer_s`: op time of
// one transformer layer on the device. The transfer is latency + bytes / bw.
// Without prefetch the gather runs inside the Engram op, so all of it is exposed.
// With prefetch the gathers are issued when the step starts (rows are addressed by the
// step's token ids alone) and stream in layer order, each layer's share (bytes / n) after
// the previous one; Engram layer l waits until its rows arrive, l x layer_s into the step
// plus the stalls so far. Exposed = the sum of the stalls.
inline double engram_host_exposed_s(double bytes, double bw_Bps, double latency_s,
                                    std::span<const int> engram_layers, double layer_s, bool prefetch) {
  if (bytes <= 0) return 0;
  const double transfer_s = latency_s + bytes / bw_Bps;
  if (!prefetch || engram_layers.empty()) return transfer_s;
  const double n = static_cast<double>(engram_layers.size());
  double stall_s = 0;
  for (std::size_t i = 0; i < engram_layers.size(); ++i) {
    const double arrive_s = latency_s + static_cast<double>(i + 1) * (bytes / n) / bw_Bps;
    const double need_s = static_cast<double>(engram_layers[i]) * layer_s + stall_s;
    stall_s += std::max(0.0, arrive_s - need_s);
  }
  return stall_s;
}

}  // namespace agentsim::serving
