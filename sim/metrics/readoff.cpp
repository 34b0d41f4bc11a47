#include "sim/metrics/readoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace agentsim::metrics {

Readoff read_off_at_speed(std::vector<CurvePoint> curve, double target) {
  Readoff r;
  r.value = std::numeric_limits<double>::quiet_NaN();
  r.concurrency = r.value;
  std::vector<CurvePoint> pts;
  for (const auto& p : curve) {
    if (std::isfinite(p.agent_speed) && std::isfinite(p.value)) pts.push_back(p);
  }
  std::sort(pts.begin(), pts.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.concurrency < b.concurrency; });
  if (pts.empty()) {
    r.note = "no sweep point has a finite per-agent speed";
    return r;
  }
  char buf[160];
  for (std::size_t i = pts.size(); i-- > 0;) {
    const CurvePoint& a = pts[i];
    if (a.agent_speed == target) {
      r.value = a.value;
      r.concurrency = a.concurrency;
      r.in_swept_range = true;
      std::snprintf(buf, sizeof buf, "at the sweep point of concurrency %g", a.concurrency);
      r.note = buf;
      return r;
    }
    if (i == 0) break;
    const CurvePoint& lo = pts[i - 1];  // lower concurrency
    const bool straddles = (lo.agent_speed - target) * (a.agent_speed - target) < 0;
    if (!straddles) continue;
    const double f = (target - lo.agent_speed) / (a.agent_speed - lo.agent_speed);
    r.value = lo.value + f * (a.value - lo.value);
    r.concurrency = lo.concurrency + f * (a.concurrency - lo.concurrency);
    r.in_swept_range = true;
    std::snprintf(buf, sizeof buf, "between concurrency %g and %g", lo.concurrency, a.concurrency);
    r.note = buf;
    return r;
  }
  double fastest = pts.front().agent_speed, slowest = pts.front().agent_speed;
  for (const auto& p : pts) {
    fastest = std::max(fastest, p.agent_speed);
    slowest = std::min(slowest, p.agent_speed);
  }
  if (target > fastest) {
    std::snprintf(buf, sizeof buf, "target %g tok/s is above the fastest swept point (%.4g tok/s)", target, fastest);
  } else {
    std::snprintf(buf, sizeof buf, "target %g tok/s is below the slowest swept point (%.4g tok/s); sweep higher concurrency",
                  target, slowest);
  }
  r.note = buf;
  return r;
}

}  // namespace agentsim::metrics
