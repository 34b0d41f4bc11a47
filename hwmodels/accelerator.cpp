#include "hwmodels/accelerator.hpp"

#include <string>

#include "sim/core/error.hpp"

namespace agentsim::hw {

double Accelerator::peak_flops_for(DType d) const {
  auto it = peak_flops.find(d);
  if (it == peak_flops.end()) {
    throw core::Error("accelerator '" + name + "' has no " + std::string(to_string(d)) + " math");
  }
  return it->second;
}

}  // namespace agentsim::hw
