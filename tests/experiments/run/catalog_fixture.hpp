#pragma once
// The repository's catalog, loaded once per test binary, and explain's default plan on a system
// (none where the model fits no plan there, where explain exits 2).
#include <optional>

#include "experiments/config/catalog.hpp"
#include "experiments/run/step_comparison.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/replica_plan.hpp"

namespace agentsim::exp::test {

inline const Catalog& repo_catalog() {
  static const Catalog c = load_catalog(AGENTSIM_SOURCE_DIR);
  return c;
}

inline std::optional<wl::ParallelPlan> default_plan_if_valid(const wl::ModelSpec& m, const hw::System& s) {
  try {
    wl::ParallelPlan p = default_plan(m, s);
    if (serving::check_plan(m, s, p).ok) return p;
  } catch (const core::Error&) {
  }
  return std::nullopt;
}

}  // namespace agentsim::exp::test
