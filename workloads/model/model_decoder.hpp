#pragma once
// A model catalog entry (workloads/catalog/models/*.yaml) decoded strictly from YAML: every
// error is at file:line:key. experiments/config/catalog.cpp loads the catalog through it.
#include "sim/core/yaml_node.hpp"
#include "workloads/model/model_spec.hpp"

namespace agentsim::wl {

ModelSpec decode_model(const core::YamlNode& n);

// A drafter map (catalog `speculative`, `deployment.speculative`): `draft` in [1, 16] (default:
// the acceptance list's length), `acceptance` one probability in [0, 1] per draft position,
// `draft_layers` >= 0 (default 1), and `method` when `with_method` (else an unknown key).
SpeculativeSpec decode_drafter(const core::YamlNode& n, bool with_method);

}  // namespace agentsim::wl
