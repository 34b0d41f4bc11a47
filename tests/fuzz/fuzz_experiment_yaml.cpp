// libFuzzer target: an experiment YAML through the strict decoder, the whole path
// `agentsim run` takes before running (syntax, keys, catalogs, what_if, plans,
// serving, workload). The file sits beside the examples so relative trace paths
// resolve. Any input must decode or fail with a core::Error.
#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string root = AGENTSIM_SOURCE_DIR;
  static const agentsim::exp::Catalog catalog = agentsim::exp::load_catalog(root);
  try {
    (void)agentsim::exp::parse_experiment(agentsim::fuzz::text_of(data, size),
                                          root + "/experiments/examples/fuzz.yaml", root, &catalog);
  } catch (const agentsim::core::Error&) {
  }
  return 0;
}
