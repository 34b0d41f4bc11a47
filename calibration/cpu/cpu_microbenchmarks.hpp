#pragma once
// The CPU backend: Eigen GEMM (fp32), grouped GEMM, memory read and copy, and
// reference decode/prefill attention, all on one thread of the host CPU.
#include <memory>

#include "calibration/microbenchmarks.hpp"

namespace agentsim::calib {

std::unique_ptr<Microbenchmarks> make_cpu_microbenchmarks();

}  // namespace agentsim::calib
