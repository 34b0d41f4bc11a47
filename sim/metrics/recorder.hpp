#pragma once
// Collects records during a run. It only stores; it never opens a file.
// By default it keeps every record. stream_window(start, end) makes it fold records
// into WindowTotals for that one window instead and store none (memory stays flat at
// scale); summarize() over that same window then gives identical results.
#include <optional>
#include <vector>

#include "sim/metrics/records.hpp"
#include "sim/metrics/window_totals.hpp"

namespace agentsim::metrics {

class Recorder {
 public:
  void add(const RequestRecord& r) {
    if (window_) window_->add(r); else requests_.push_back(r);
  }
  void add(const StepRecord& s) {
    if (window_) window_->add(s); else steps_.push_back(s);
  }
  // Call before the first add: from now on only the totals of [start_s, end_s) are kept.
  void stream_window(double start_s, double end_s) {
    window_.emplace();
    window_->start_s = start_s;
    window_->end_s = end_s;
  }
  // A recorder streaming `totals`' window that already holds `totals` (a part moved between processes).
  static Recorder streaming(WindowTotals totals) {
    Recorder r;
    r.window_ = std::move(totals);
    return r;
  }
  // Appends another recorder's records (or folds in its streamed totals; both must
  // stream the same window or neither): the parts of a cluster simulated as pods.
  void absorb(Recorder&& other);
  // The streamed window's totals; null when records are stored.
  const WindowTotals* streamed() const { return window_ ? &*window_ : nullptr; }
  const std::vector<RequestRecord>& requests() const { return requests_; }
  const std::vector<StepRecord>& steps() const { return steps_; }

 private:
  std::vector<RequestRecord> requests_;
  std::vector<StepRecord> steps_;
  std::optional<WindowTotals> window_;
};

}  // namespace agentsim::metrics
