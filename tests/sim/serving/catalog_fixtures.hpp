#pragma once
// The lower-layer test fixtures seen as one catalog (accelerators, systems, models), for the
// serving tests: tests/hwmodels/fixtures and tests/workloads/model/fixtures, decoded by the
// hwmodels and workloads decoders. Not the shipped catalog: editing a catalog value changes
// no serving test.
#include "sim/core/registry.hpp"
#include "tests/hwmodels/hw_fixtures.hpp"
#include "tests/workloads/model/model_fixtures.hpp"

namespace agentsim::serving::test {

struct FixtureCatalog {
  const core::Registry<hw::Accelerator>& accelerators;
  const core::Registry<hw::System>& systems;
  const core::Registry<wl::ModelSpec>& models;
};

inline const FixtureCatalog& fixture_catalog() {
  static const FixtureCatalog c{hw::test::hw_fixtures().accelerators, hw::test::hw_fixtures().systems,
                                wl::test::model_fixtures()};
  return c;
}

}  // namespace agentsim::serving::test
