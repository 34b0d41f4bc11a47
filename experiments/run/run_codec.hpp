#pragma once
// A RunResult as bytes, to move runs between MPI ranks and to keep finished
// runs of an interrupted sweep for --resume. Same-machine format (native byte
// order); decode(encode(r)) reproduces r exactly.
#include <string>
#include <vector>

#include "experiments/run/runner.hpp"

namespace agentsim::exp {

std::string encode_runs(const std::vector<RunResult>& runs);
// Throws core::Error on a truncated or malformed buffer.
std::vector<RunResult> decode_runs(const std::string& bytes);

// One pod's outcome (runner.hpp), to move pods of one run between MPI ranks; decode_pod(encode_pod(p))
// merges exactly as p would.
std::string encode_pod(const PodOutcome& pod);
PodOutcome decode_pod(const std::string& bytes);

}  // namespace agentsim::exp
