#include "sim/metrics/recorder.hpp"

#include "sim/core/error.hpp"

namespace agentsim::metrics {

void Recorder::absorb(Recorder&& other) {
  if (window_.has_value() != other.window_.has_value() ||
      (window_ && (window_->start_s != other.window_->start_s || window_->end_s != other.window_->end_s))) {
    throw core::Error("recorders of one cluster must stream the same window, or none");
  }
  if (window_) {
    window_->merge(*other.window_);
    return;
  }
  if (requests_.empty()) requests_ = std::move(other.requests_);
  else requests_.insert(requests_.end(), other.requests_.begin(), other.requests_.end());
  if (steps_.empty()) steps_ = std::move(other.steps_);
  else steps_.insert(steps_.end(), other.steps_.begin(), other.steps_.end());
}

}  // namespace agentsim::metrics
