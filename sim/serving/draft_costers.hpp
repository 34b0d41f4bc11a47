#pragma once
// Steps priced with the drafts a draft schedule (SpecDecodeOptions::schedule) sets: the drafter
// as a step of d drafts runs it, for d in 0..k, and a coster for the drafter's own k and for every
// d the schedule names. The one mechanism behind the replica's steps and the search's bound.
#include <memory>
#include <vector>

#include "hwmodels/system.hpp"
#include "sim/serving/spec_decode.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/serving/step_coster.hpp"
#include "workloads/model/model_spec.hpp"

namespace agentsim::serving {

class DraftCosters {
 public:
  // `model` and `system` are referenced, not copied: they must outlive this.
  DraftCosters(const wl::ModelSpec& model, const hw::System& system, const StepCostOptions& opt);
  // The drafter's own draft count, k (0 without a drafter).
  int own_drafts() const { return static_cast<int>(by_drafts_.size()) - 1; }
  // Drafts of a step formed with `running` sequences on the replica (0 without a drafter).
  int drafts(long long running) const { return full_.enabled() ? full_.drafts_for(running) : 0; }
  // The drafter as a step of `drafts` runs it (off at 0); its expected_tokens_per_step() is what a
  // decoding sequence emits a step.
  const SpecDecodeOptions& spec(int drafts) const { return by_drafts_.at(static_cast<std::size_t>(drafts)); }
  // Prices steps of `drafts` drafts: the drafter's own k, or a count the schedule names.
  const StepCoster& coster(int drafts) const { return *costers_.at(static_cast<std::size_t>(drafts)); }

 private:
  SpecDecodeOptions full_;
  std::vector<SpecDecodeOptions> by_drafts_;              // index: drafts, 0..k
  std::vector<std::unique_ptr<StepCoster>> costers_;      // index: drafts; null where never run
};

}  // namespace agentsim::serving
