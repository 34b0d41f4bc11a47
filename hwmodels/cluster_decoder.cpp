#include "hwmodels/cluster_decoder.hpp"

#include <array>

#include "sim/core/decode_helpers.hpp"

namespace agentsim::hw {
using core::Dimension;
using core::OptionSpec;
using core::YamlNode;

namespace {

constexpr std::array kClusterKeys = {
    OptionSpec{"system", "string", "", "system catalog name"},
    OptionSpec{"count", "integer", "1", "systems in the cluster"},
    OptionSpec{"fabric", "map", "defaults below", "scale-out fabric joining the systems"},
};
constexpr std::array kFabricKeys = {
    OptionSpec{"kind", "string", "rail-optimized", "rail-optimized | fat-tree"},
    OptionSpec{"leaf_radix", "integer", "64", "ports per leaf switch (half down, half up); 64 as a 51.2T switch at 800G"},
    OptionSpec{"switch_latency", "time", "0.5us", "one switch traversal (assumed: cut-through IB/Ethernet switch ~0.2-0.6 us)"},
};

}  // namespace

ClusterHardware decode_cluster(const YamlNode& n, const core::Registry<System>& systems) {
  n.check_keys(kClusterKeys);
  ClusterHardware c;
  const YamlNode sys = n.at("system");
  c.system = systems.get(sys.as_string(), sys.where());
  c.systems = n.has("count") ? positive_int(n.at("count")) : 1;
  c.name = std::to_string(c.systems) + "x" + c.system.name;
  if (const auto f = n.find("fabric")) {
    f->check_keys(kFabricKeys);
    const std::string kind = f->string_or("kind", "rail-optimized");
    if (kind == "rail-optimized") {
      c.fabric.kind = hw::FabricKind::kRailOptimized;
    } else if (kind == "fat-tree") {
      c.fabric.kind = hw::FabricKind::kFatTree;
    } else {
      throw f->at("kind").error("unknown fabric '" + kind + "'; valid: rail-optimized, fat-tree");
    }
    if (f->has("leaf_radix")) {
      c.fabric.leaf_radix = positive_int(f->at("leaf_radix"));
      if (c.fabric.leaf_radix < 2) throw f->at("leaf_radix").error("a leaf needs at least 2 ports");
    }
    if (f->has("switch_latency")) c.fabric.switch_latency_s = f->at("switch_latency").as_quantity(Dimension::kTime);
  }
  return c;
}

}  // namespace agentsim::hw
