#include "sim/serving/draft_costers.hpp"

namespace agentsim::serving {

DraftCosters::DraftCosters(const wl::ModelSpec& model, const hw::System& system, const StepCostOptions& opt)
    : full_(opt.spec) {
  const int k = full_.enabled() ? full_.draft_tokens : 0;
  for (int d = 0; d <= k; ++d) by_drafts_.push_back(d == k ? full_ : with_drafts(full_, d));
  costers_.resize(static_cast<std::size_t>(k) + 1);
  costers_.back() = std::make_unique<StepCoster>(model, system, opt);
  for (const auto& [from, drafts] : full_.schedule) {
    std::unique_ptr<StepCoster>& c = costers_.at(static_cast<std::size_t>(drafts));
    if (c) continue;
    StepCostOptions o = opt;
    o.spec = by_drafts_[static_cast<std::size_t>(drafts)];
    c = std::make_unique<StepCoster>(model, system, std::move(o));
  }
}

}  // namespace agentsim::serving
