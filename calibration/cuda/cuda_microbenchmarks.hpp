#pragma once
// The CUDA backend (built only where nvcc is found): cuBLASLt GEMM (BF16, FP8 on
// compute capability 9+), per-expert grouped GEMM, HBM read and copy, reference
// paged decode and causal prefill attention, pinned host<->device copies,
// launch and graph-replay latency, NCCL collectives when more than one GPU exists.
#include <memory>

#include "calibration/microbenchmarks.hpp"

namespace agentsim::calib {

// Throws core::Error from run() when no CUDA device or driver is present.
std::unique_ptr<Microbenchmarks> make_cuda_microbenchmarks();

}  // namespace agentsim::calib
