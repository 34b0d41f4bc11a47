#include "sim/serving/engine_overhead.hpp"

#include <algorithm>

namespace agentsim::serving {

namespace {
// One scheduler's even share of `n`, rounded up.
long long share(long long n, int schedulers) {
  const long long k = std::max(1, schedulers);
  return (n + k - 1) / k;
}
}  // namespace

EngineOverhead::Terms EngineOverhead::terms(const StepBatch& batch, int schedulers) const {
  Terms t;
  if (batch.empty()) return t;
  const std::size_t sequences = batch.decodes.size() + batch.prefills.size();
  t.graph = graph_step(batch, schedulers);
  t.fixed_s = t.graph ? graph_fixed_s : fixed_s;
  t.sequences_s = per_sequence_s * static_cast<double>(share(static_cast<long long>(sequences), schedulers));
  t.tokens_s = per_token_s * static_cast<double>(share(batch.new_tokens(), schedulers));
  return t;
}

bool EngineOverhead::graph_step(const StepBatch& batch, int schedulers) const {
  return batch.prefills.empty() &&
         (graph_max_sequences <= 0 ||
          share(static_cast<long long>(batch.decodes.size()), schedulers) <= static_cast<long long>(graph_max_sequences));
}

double EngineOverhead::exposed_s(const Terms& t, double device_s) const {
  if (!overlap_scheduler) return t.total_s();
  return t.fixed_s + std::max(0.0, t.sequences_s + t.tokens_s - device_s);
}

std::string_view to_string(Engine e) { return core::name_of(kEngineNames, e); }

}  // namespace agentsim::serving
