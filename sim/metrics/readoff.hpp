#pragma once
// Read-offs from a concurrency sweep's curve (DESIGN.md section 3): the value of
// a metric (e.g. tokens/s per MW) at a target per-agent output speed,
// interpolated between the two sweep points that bracket the target, never
// extrapolated.
#include <string>
#include <vector>

namespace agentsim::metrics {

struct CurvePoint {
  double concurrency = 0;
  double agent_speed = 0;  // per-agent output tok/s (e.g. p50) at this point
  double value = 0;        // the metric to read off (e.g. total tok/s per MW)
};

struct Readoff {
  double value = 0;            // NaN when the target is outside the swept range
  bool in_swept_range = false;
  double concurrency = 0;      // interpolated concurrency at the target (NaN when outside)
  std::string note;            // why it is outside, or which points bracket it
};

// Points in any order; they are sorted by concurrency. Among brackets (consecutive
// points whose speeds straddle the target) the one of highest concurrency wins: the
// most load at which agents still get the target speed. Linear in speed between
// the two points, hence monotone between them.
Readoff read_off_at_speed(std::vector<CurvePoint> curve, double target_speed);

}  // namespace agentsim::metrics
