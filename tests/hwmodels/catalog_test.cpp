// The hardware catalog (hwmodels/catalog, this layer's own data, read here through this
// layer's own decoder): every entry loads, every value is positive, every data line cites a
// source or says it is assumed, and bad units are located.
#include "hwmodels/cluster_decoder.hpp"
#include "hwmodels/hardware_decoder.hpp"
#include "hwmodels/topology.hpp"
#include "sim/core/yaml_node.hpp"
#include "tests/hwmodels/hw_fixtures.hpp"
#include "tests/support/citation_rule.hpp"

#include <gtest/gtest.h>
#include "tests/support/file_text.hpp"
#include "tests/support/source_root.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace agentsim::hw {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;
using agentsim::test_support::slurp;

struct ShippedHardware {
  core::Registry<Accelerator> accelerators{"accelerator"};
  core::Registry<System> systems{"system"};
};

// The shipped hardware catalog, decoded entry by entry as experiments' load_catalog does.
const ShippedHardware& catalog() {
  static const ShippedHardware c = [] {
    ShippedHardware out;
    for (const auto& p : test::yaml_fixture_files(fs::path(kRoot) / "hwmodels/catalog/accelerators")) {
      Accelerator a = decode_accelerator(core::YamlNode::load_file(p.string()));
      out.accelerators.add(a.name, a);
    }
    for (const auto& p : test::yaml_fixture_files(fs::path(kRoot) / "hwmodels/catalog/systems")) {
      System s = decode_system(core::YamlNode::load_file(p.string()), out.accelerators);
      out.systems.add(s.name, s);
    }
    return out;
  }();
  return c;
}

TEST(HardwareCatalog, HoldsTheTenSystemsAndTenAccelerators) {
  const std::vector<std::string> systems{"gb200-nvl72", "gb300-nvl72", "hgx-a100", "hgx-b200", "hgx-b300",
                                         "hgx-h100",    "hgx-h200",    "mi300x-8", "mi325x-8", "mi355x-8"};
  const std::vector<std::string> accelerators{"a100-sxm-80gb", "b200", "b300", "gb200", "gb300",
                                              "h100-sxm",      "h200", "mi300x", "mi325x", "mi355x"};
  EXPECT_EQ(catalog().systems.names(), systems);
  EXPECT_EQ(catalog().accelerators.names(), accelerators);
}

TEST(HardwareCatalog, EveryValueIsPositive) {
  for (const auto& [name, a] : catalog().accelerators.entries()) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(a.peak_flops.empty());
    for (const auto& [d, v] : a.peak_flops) EXPECT_GT(v, 0);
    for (const double v : {a.hbm_bytes, a.hbm_bw_Bps, a.l2_bytes, a.launch_floor_s, a.tdp_w, a.idle_w,
                           a.decode_power_fraction, a.scale_up_bw_Bps, a.scale_up_latency_s}) {
      EXPECT_GT(v, 0);
    }
    EXPECT_LT(a.idle_w, a.tdp_w);
    // Dense peaks: FP8 is twice BF16 on every part that has FP8 (A100 has none).
    if (a.peak_flops.count(hw::DType::kFp8)) {
      EXPECT_NEAR(a.peak_flops.at(hw::DType::kBf16) * 2, a.peak_flops.at(hw::DType::kFp8), 2e12);
    }
  }
  for (const auto& [name, s] : catalog().systems.entries()) {
    SCOPED_TRACE(name);
    const hw::HostSpec& h = s.host;
    EXPECT_GT(s.accelerators, 0);
    for (const double v : {s.scale_up_bw_Bps, s.scale_up_latency_s, h.cpu_tdp_w, h.memory_bytes, h.memory_bw_Bps,
                           h.gpu_link_bw_Bps, h.gpu_link_latency_s, h.ssd_bytes, h.ssd_bw_Bps,
                           s.scale_out.nic_bw_Bps, s.scale_out.nic_w, s.scale_out.latency_s, s.power.nameplate_w,
                           s.power.fans_misc_w, s.power.psu_efficiency}) {
      EXPECT_GT(v, 0);
    }
    EXPECT_GT(h.cpus, 0);
    EXPECT_GT(h.gpus_per_host_link, 0);
    EXPECT_GT(s.scale_out.nics, 0);
    // Power parts that may be absent are zero, never negative.
    EXPECT_GE(s.power.switch_w, 0);
    EXPECT_GE(s.power.host_memory_w, 0);
    EXPECT_EQ(s.topology == "amd-mesh", s.scale_up_switch_chips == 0);
  }
  const hw::System& rack = catalog().systems.get("gb300-nvl72");
  EXPECT_EQ(rack.accelerators, 72);
  EXPECT_EQ(rack.host.cpus, 36);
  EXPECT_DOUBLE_EQ(rack.power.rack_nameplate_w, 132e3);
}

// Identifiers name things; every other scalar line is data and must cite by the rule in
// tests/support/citation_rule.hpp (docs/hardware.md "Citations").
TEST(HardwareCatalog, EveryDataLineCitesASourceOrSaysAssumed) {
  const test_support::CitationScan scan = test_support::scan_citations(
      kRoot, {"hwmodels/catalog/accelerators", "hwmodels/catalog/systems"}, {"name", "display_name", "vendor", "accelerator"});
  for (const auto& f : scan.failures) ADD_FAILURE() << f.where << ": " << f.why << "\n  " << f.line;
  // 20 files of 12-30 data lines each; the scan must have seen them.
  EXPECT_GT(scan.data_lines, 300);
  EXPECT_GT(scan.sourced, 150);
  EXPECT_GT(scan.assumed, 0);
}

struct TempYaml {
  fs::path path;
  explicit TempYaml(const std::string& name, const std::string& text)
      : path(fs::temp_directory_path() / ("agentsim_hw_" + name + ".yaml")) {
    std::ofstream(path) << text;
  }
  ~TempYaml() { fs::remove(path); }
};

std::string decode_error(const std::string& text) {
  TempYaml f("bad_unit", text);
  try {
    decode_accelerator(core::YamlNode::load_file(f.path.string()));
  } catch (const core::Error& e) {
    return e.what();
  }
  return "";
}

TEST(HardwareCatalog, WrongUnitsAreErrorsWithFileLineAndKey) {
  const std::string h200 = slurp(fs::path(kRoot) / "hwmodels/catalog/accelerators/h200.yaml");
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = h200;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  // hbm_bandwidth is on line 9 of h200.yaml; a size is not a bandwidth.
  const std::string size = decode_error(replace("hbm_bandwidth: \"4.8TB/s\"", "hbm_bandwidth: \"4.8TB\""));
  EXPECT_NE(size.find("agentsim_hw_bad_unit.yaml:9"), std::string::npos) << size;
  EXPECT_NE(size.find("hbm_bandwidth"), std::string::npos) << size;
  EXPECT_NE(size.find("bandwidth"), std::string::npos) << size;
  // A bare number has no unit.
  const std::string bare = decode_error(replace("tdp: \"700W\"", "tdp: 700"));
  EXPECT_NE(bare.find("tdp"), std::string::npos) << bare;
  EXPECT_NE(bare.find("no unit"), std::string::npos) << bare;
  // An unknown unit, and a misspelt key with a suggestion.
  EXPECT_NE(decode_error(replace("\"143745MiB\"", "\"141 parsecs\"")).find("hbm_capacity"), std::string::npos);
  const std::string typo = decode_error(replace("idle_power:", "idle_powr:"));
  EXPECT_NE(typo.find("idle_power"), std::string::npos) << typo;
  // A decode fraction outside (0, 1].
  EXPECT_NE(decode_error(replace("decode_power_fraction: 0.35", "decode_power_fraction: 1.5")).find("fraction"),
            std::string::npos);
}

TEST(HardwareCatalog, KernelTablesFromNamesAnotherAccelerator) {
  EXPECT_EQ(catalog().accelerators.get("gb200").kernel_tables_from.at("gemm_fp4"), "b200");
  EXPECT_TRUE(catalog().accelerators.get("b200").kernel_tables_from.empty());
  const std::string h200 = slurp(fs::path(kRoot) / "hwmodels/catalog/accelerators/h200.yaml");
  const std::string self = decode_error(h200 + "kernel_tables_from:\n  gemm_fp8: h200\n");
  EXPECT_NE(self.find("kernel_tables_from.gemm_fp8"), std::string::npos) << self;
  EXPECT_NE(self.find("another accelerator"), std::string::npos) << self;
  const std::string list = decode_error(h200 + "kernel_tables_from: [h100-sxm]\n");
  EXPECT_NE(list.find("mapping of profile table name"), std::string::npos) << list;
}

TEST(HardwareCatalog, UnknownHostLinkIsRejected) {
  std::string text = slurp(fs::path(kRoot) / "hwmodels/catalog/systems/hgx-h200.yaml");
  text.replace(text.find("gpu_link: pcie5"), 15, "gpu_link: pcie9");
  TempYaml f("bad_link", text);
  try {
    decode_system(core::YamlNode::load_file(f.path.string()), catalog().accelerators);
    ADD_FAILURE() << "pcie9 accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("host.gpu_link"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pcie5"), std::string::npos) << e.what();
  }
}

TEST(ClusterDecoder, ComposesSystemsWithAFabric) {
  TempYaml f("cluster", "system: hgx-b200\ncount: 4\nfabric:\n  kind: fat-tree\n  leaf_radix: 16\n"
                        "  switch_latency: \"0.4us\"\n");
  const hw::ClusterHardware c = decode_cluster(core::YamlNode::load_file(f.path.string()), catalog().systems);
  EXPECT_EQ(c.systems, 4);
  EXPECT_EQ(c.accelerators(), 32);
  EXPECT_EQ(c.fabric.kind, hw::FabricKind::kFatTree);
  EXPECT_DOUBLE_EQ(c.fabric.switch_latency_s, 0.4e-6);
  // 32 NICs, 8 per leaf: 4 leaves and 8 spines.
  const hw::Topology t = hw::build_topology(c);
  EXPECT_EQ(t.gpu_count(), 32);
  EXPECT_EQ(t.nodes(hw::NodeKind::kLeafSwitch).size(), 4u);
  EXPECT_EQ(t.nodes(hw::NodeKind::kSpineSwitch).size(), 8u);

  TempYaml bad("cluster_bad", "system: hgx-b200\nfabric:\n  kind: torus\n");
  EXPECT_THROW(decode_cluster(core::YamlNode::load_file(bad.path.string()), catalog().systems), core::Error);
}

}  // namespace
}  // namespace agentsim::hw
