#include "sim/serving/engine_overhead.hpp"

namespace agentsim::serving {

EngineOverhead::Terms EngineOverhead::terms(const StepBatch& batch) const {
  Terms t;
  if (batch.empty()) return t;
  const auto sequences = static_cast<double>(batch.decodes.size() + batch.prefills.size());
  t.graph = graph_step(batch);
  t.fixed_s = t.graph ? graph_fixed_s : fixed_s;
  t.sequences_s = per_sequence_s * sequences;
  t.tokens_s = per_token_s * static_cast<double>(batch.new_tokens());
  return t;
}

bool EngineOverhead::graph_step(const StepBatch& batch) const {
  return batch.prefills.empty() &&
         (graph_max_sequences <= 0 || batch.decodes.size() <= static_cast<std::size_t>(graph_max_sequences));
}

std::string_view to_string(Engine e) { return core::name_of(kEngineNames, e); }

}  // namespace agentsim::serving
