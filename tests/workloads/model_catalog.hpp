#pragma once
// The source tree's model catalog, loaded once per test program.
#include "experiments/catalog.hpp"

namespace agentsim::wl::test {

inline const ModelSpec& model(const std::string& name) {
  static const exp::Catalog catalog = exp::load_catalog(AGENTSIM_SOURCE_DIR);
  return catalog.models.get(name);
}

}  // namespace agentsim::wl::test
