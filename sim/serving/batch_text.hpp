#pragma once
// A step batch written as text, for `agentsim explain` and tests:
// "decode=64@32768,prefill=1x4096@0": 64 decode tokens at 32768 tokens of
// context, one prefill chunk of 4096 new tokens over 0 cached (completing its
// prompt). Items repeat and combine in any order.
#include <string_view>

#include "sim/serving/step_batch.hpp"

namespace agentsim::serving {

// Throws core::Error naming the bad item and the expected form.
StepBatch parse_step_batch(std::string_view text);

}  // namespace agentsim::serving
