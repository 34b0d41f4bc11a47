#pragma once
// Collects records during a run. It only stores; it never opens a file.
#include <vector>

#include "sim/metrics/records.hpp"

namespace agentsim::metrics {

class Recorder {
 public:
  void add(const RequestRecord& r) { requests_.push_back(r); }
  void add(const StepRecord& s) { steps_.push_back(s); }
  const std::vector<RequestRecord>& requests() const { return requests_; }
  const std::vector<StepRecord>& steps() const { return steps_; }

 private:
  std::vector<RequestRecord> requests_;
  std::vector<StepRecord> steps_;
};

}  // namespace agentsim::metrics
