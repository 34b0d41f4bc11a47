#include "hwmodels/system.hpp"

namespace agentsim::hw {

std::string_view to_string(HostLinkKind k) {
  switch (k) {
    case HostLinkKind::kPcie4: return "pcie4";
    case HostLinkKind::kPcie5: return "pcie5";
    case HostLinkKind::kPcie6: return "pcie6";
    case HostLinkKind::kNvlinkC2c: return "nvlink-c2c";
  }
  return "?";
}

}  // namespace agentsim::hw
