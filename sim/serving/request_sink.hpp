#pragma once
// Where session drivers send requests: a replica, or a router in front of many.
#include "sim/serving/request.hpp"

namespace agentsim::serving {

class RequestSink {
 public:
  virtual ~RequestSink() = default;
  // Queues `r` at the current simulated time; `done` fires once when it finishes or is rejected.
  virtual void submit(const Request& r, CompletionFn done) = 0;
};

}  // namespace agentsim::serving
