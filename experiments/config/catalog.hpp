#pragma once
// The hardware and model catalogs, decoded strictly from their YAML files
// (hwmodels/catalog/{accelerators,systems}/*.yaml, workloads/catalog/models/*.yaml,
// experiments/catalog/engines.yaml), each entry by its own layer's decoder
// (hwmodels/hardware_decoder.hpp, workloads/model/model_decoder.hpp,
// sim/serving/engine_overhead_decoder.hpp).
#include <array>
#include <string>

#include "hwmodels/accelerator.hpp"
#include "hwmodels/system.hpp"
#include "sim/core/registry.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "workloads/model/model_spec.hpp"

namespace agentsim::exp {

struct Catalog {
  core::Registry<hw::Accelerator> accelerators{"accelerator"};
  core::Registry<hw::System> systems{"system"};
  core::Registry<wl::ModelSpec> models{"model"};
  // Host overhead per serving engine, by serving::Engine (experiments/catalog/engines.yaml).
  std::array<serving::EngineOverhead, serving::kEngineCount> engines{};
  const serving::EngineOverhead& engine(serving::Engine e) const { return engines[static_cast<std::size_t>(e)]; }
};

// The source tree's root, where the catalogs live (a compile definition).
std::string default_root();

// Loads every catalog file under `root`, in file-name order.
Catalog load_catalog(const std::string& root);

}  // namespace agentsim::exp
