// agentsim catalog list | agentsim catalog show NAME [--json]
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/config/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "hwmodels/memory_tier.hpp"
#include "hwmodels/power_model.hpp"
#include "sim/core/units.hpp"

namespace agentsim::cli {
namespace {
using core::Dimension;
using core::format_quantity;
using Json = nlohmann::ordered_json;

Json accelerator_json(const hw::Accelerator& a) {
  Json flops = Json::object();
  for (const auto& [d, v] : a.peak_flops) flops[std::string(hw::to_string(d))] = v;
  return Json{{"name", a.name},
              {"display_name", a.display_name},
              {"vendor", a.vendor},
              {"peak_flops_per_s", flops},
              {"hbm_bytes", a.hbm_bytes},
              {"hbm_bw_Bps", a.hbm_bw_Bps},
              {"l2_bytes", a.l2_bytes},
              {"launch_floor_s", a.launch_floor_s},
              {"tdp_w", a.tdp_w},
              {"idle_w", a.idle_w},
              {"decode_power_fraction", a.decode_power_fraction},
              {"scale_up_bw_Bps", a.scale_up_bw_Bps},
              {"scale_up_latency_s", a.scale_up_latency_s}};
}

Json power_breakdown_json(const hw::SystemPower& p) {
  return Json{{"accelerators_w", p.accelerators_w}, {"host_cpus_w", p.host_cpus_w},
              {"host_memory_w", p.host_memory_w},   {"nics_w", p.nics_w},
              {"switches_w", p.switches_w},         {"fans_misc_w", p.fans_misc_w},
              {"psu_loss_w", p.psu_loss_w},         {"wall_w", p.wall_w}};
}

Json system_json(const hw::System& s) {
  const hw::HostSpec& h = s.host;
  const hw::SystemPowerSpec& p = s.power;
  Json tiers = Json::array();
  for (const auto& t : hw::memory_tiers(s)) {
    tiers.push_back(Json{{"tier", std::string(hw::to_string(t.kind))},
                         {"capacity_bytes", t.capacity_bytes},
                         {"device_bw_Bps", t.device_bw_Bps},
                         {"latency_s", t.latency_s},
                         {"link", std::string(t.link)},
                         {"link_bw_Bps", t.link_bw_Bps},
                         {"gpus_per_link", t.gpus_per_link},
                         {"links", t.links}});
  }
  Json peak = Json::object();
  for (const auto& [d, v] : s.accelerator.peak_flops) peak[std::string(hw::to_string(d))] = v * s.accelerators;
  const double n = s.accelerators;
  Json power{{"nameplate_w", p.nameplate_w},
             {"switch_w", p.switch_w},
             {"host_memory_w", p.host_memory_w},
             {"fans_misc_w", p.fans_misc_w},
             {"psu_efficiency", p.psu_efficiency},
             {"accelerators_tdp_w", s.accelerator.tdp_w * n},
             {"modeled_at_tdp", power_breakdown_json(hw::system_power_at_tdp(s))},
             {"modeled_gpus_idle", power_breakdown_json(hw::system_power(s, s.accelerator.idle_w))}};
  if (p.nvlink_switch_trays > 0 || p.rack_nameplate_w > 0) {
    power["rack"] = Json{{"nvlink_switch_trays", p.nvlink_switch_trays},
                         {"switch_tray_w", p.switch_tray_w},
                         {"compute_trays", p.compute_trays},
                         {"compute_tray_w", p.compute_tray_w},
                         {"power_shelves", p.power_shelves},
                         {"power_shelf_capacity_w", p.power_shelf_capacity_w},
                         {"rack_nameplate_w", p.rack_nameplate_w},
                         {"rack_draw_under_load_w", p.rack_draw_under_load_w}};
  }
  return Json{{"kind", "system"},
              {"name", s.name},
              {"display_name", s.display_name},
              {"accelerators", s.accelerators},
              {"accelerator", accelerator_json(s.accelerator)},
              {"topology", s.topology},
              {"scale_up_switch_chips", s.scale_up_switch_chips},
              {"scale_up_bw_Bps", s.scale_up_bw_Bps},
              {"scale_up_latency_s", s.scale_up_latency_s},
              {"totals", Json{{"hbm_bytes", s.accelerator.hbm_bytes * n},
                              {"hbm_bw_Bps", s.accelerator.hbm_bw_Bps * n},
                              {"peak_flops_per_s", peak}}},
              {"host", Json{{"cpus", h.cpus},
                            {"cpu_model", h.cpu_model},
                            {"cpu_tdp_w", h.cpu_tdp_w},
                            {"memory_bytes", h.memory_bytes},
                            {"memory_bw_Bps", h.memory_bw_Bps},
                            {"gpu_link", std::string(hw::to_string(h.gpu_link))},
                            {"gpu_link_bw_Bps", h.gpu_link_bw_Bps},
                            {"gpu_link_latency_s", h.gpu_link_latency_s},
                            {"gpus_per_host_link", h.gpus_per_host_link},
                            {"ssd_bytes", h.ssd_bytes},
                            {"ssd_bw_Bps", h.ssd_bw_Bps}}},
              {"scale_out", Json{{"nics", s.scale_out.nics},
                                 {"nic_bw_Bps", s.scale_out.nic_bw_Bps},
                                 {"nic_w", s.scale_out.nic_w},
                                 {"latency_s", s.scale_out.latency_s}}},
              {"memory_tiers", tiers},
              {"power", power}};
}

std::string q(double v, Dimension d) { return format_quantity(v, d); }

std::string peaks(const hw::Accelerator& a) {
  std::string out;
  for (auto it = a.peak_flops.rbegin(); it != a.peak_flops.rend(); ++it) {
    if (!out.empty()) out += ", ";
    out += std::string(hw::to_string(it->first)) + " " + q(it->second, Dimension::kFlopRate);
  }
  return out;
}

void print_accelerator(const hw::Accelerator& a) {
  std::printf("accelerator %s (%s, %s)\n", a.name.c_str(), a.display_name.c_str(), a.vendor.c_str());
  std::printf("  dense peaks        %s\n", peaks(a).c_str());
  std::printf("  HBM                %s at %s\n", q(a.hbm_bytes, Dimension::kBytes).c_str(),
              q(a.hbm_bw_Bps, Dimension::kBandwidth).c_str());
  std::printf("  L2                 %s\n", q(a.l2_bytes, Dimension::kBytes).c_str());
  std::printf("  launch floor       %s\n", q(a.launch_floor_s, Dimension::kTime).c_str());
  std::printf("  power              TDP %s, idle %s, decode fraction %.2f\n", q(a.tdp_w, Dimension::kPower).c_str(),
              q(a.idle_w, Dimension::kPower).c_str(), a.decode_power_fraction);
  std::printf("  scale-up           %s per direction, %s per hop\n", q(a.scale_up_bw_Bps, Dimension::kBandwidth).c_str(),
              q(a.scale_up_latency_s, Dimension::kTime).c_str());
}

void print_system(const hw::System& s) {
  const hw::HostSpec& h = s.host;
  const hw::SystemPowerSpec& p = s.power;
  const double n = s.accelerators;
  std::printf("system %s (%s)\n", s.name.c_str(), s.display_name.c_str());
  std::printf("  accelerators       %d x %s, topology %s, %d switch chips\n", s.accelerators,
              s.accelerator.name.c_str(), s.topology.c_str(), s.scale_up_switch_chips);
  std::printf("  HBM total          %s at %s\n", q(s.accelerator.hbm_bytes * n, Dimension::kBytes).c_str(),
              q(s.accelerator.hbm_bw_Bps * n, Dimension::kBandwidth).c_str());
  std::printf("  host               %d x %s (%s each), DRAM %s at %s\n", h.cpus, h.cpu_model.c_str(),
              q(h.cpu_tdp_w, Dimension::kPower).c_str(), q(h.memory_bytes, Dimension::kBytes).c_str(),
              q(h.memory_bw_Bps, Dimension::kBandwidth).c_str());
  std::printf("  host link          %s, %s per direction, %d GPU(s) per link, %s\n",
              std::string(hw::to_string(h.gpu_link)).c_str(), q(h.gpu_link_bw_Bps, Dimension::kBandwidth).c_str(),
              h.gpus_per_host_link, q(h.gpu_link_latency_s, Dimension::kTime).c_str());
  std::printf("  local SSD          %s at %s\n", q(h.ssd_bytes, Dimension::kBytes).c_str(),
              q(h.ssd_bw_Bps, Dimension::kBandwidth).c_str());
  std::printf("  scale-out          %d NICs x %s (%s each), %s one-way\n", s.scale_out.nics,
              q(s.scale_out.nic_bw_Bps, Dimension::kBandwidth).c_str(), q(s.scale_out.nic_w, Dimension::kPower).c_str(),
              q(s.scale_out.latency_s, Dimension::kTime).c_str());
  const hw::SystemPower max = hw::system_power_at_tdp(s);
  std::printf("  power              nameplate %s; modeled at TDP %s (PSU efficiency %.2f)\n",
              q(p.nameplate_w, Dimension::kPower).c_str(), q(max.wall_w, Dimension::kPower).c_str(), p.psu_efficiency);
  if (p.nvlink_switch_trays > 0) {
    std::printf("  rack               %d compute trays x %s, %d NVLink switch trays x %s, %d power shelves x %s\n",
                p.compute_trays, q(p.compute_tray_w, Dimension::kPower).c_str(), p.nvlink_switch_trays,
                q(p.switch_tray_w, Dimension::kPower).c_str(), p.power_shelves,
                q(p.power_shelf_capacity_w, Dimension::kPower).c_str());
    std::printf("  rack power         nameplate %s, published draw under load %s\n",
                q(p.rack_nameplate_w, Dimension::kPower).c_str(), q(p.rack_draw_under_load_w, Dimension::kPower).c_str());
  }
  print_accelerator(s.accelerator);
}

}  // namespace

Command add_catalog_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string name;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("catalog", "list or show the hardware catalog");
  sub->require_subcommand(1);
  CLI::App* list = sub->add_subcommand("list", "systems and accelerators, one line each");
  CLI::App* show = sub->add_subcommand("show", "every figure of one system or accelerator");
  show->add_option("name", args->name, "system or accelerator name")->required();
  show->add_flag("--json", args->json, "JSON in SI units (bytes, bytes/s, W, s, FLOP/s)");

  return Command{sub, [args, list, &ctx]() {
    const exp::Catalog c = exp::load_catalog(ctx.root);
    if (list->parsed()) {
      std::printf("systems (%zu):\n", c.systems.size());
      for (const auto& [name, s] : c.systems.entries()) {
        std::printf("  %-14s %2d x %-14s %-9s HBM %-9s nameplate %-9s %s\n", name.c_str(), s.accelerators,
                    s.accelerator.name.c_str(), s.topology.c_str(),
                    q(s.accelerator.hbm_bytes * s.accelerators, Dimension::kBytes).c_str(),
                    q(s.power.nameplate_w, Dimension::kPower).c_str(), s.display_name.c_str());
      }
      std::printf("accelerators (%zu):\n", c.accelerators.size());
      for (const auto& [name, a] : c.accelerators.entries()) {
        std::printf("  %-14s %-6s %-9s %-10s TDP %-7s %s\n", name.c_str(), a.vendor.c_str(),
                    q(a.hbm_bytes, Dimension::kBytes).c_str(), q(a.hbm_bw_Bps, Dimension::kBandwidth).c_str(),
                    q(a.tdp_w, Dimension::kPower).c_str(), peaks(a).c_str());
      }
      return 0;
    }
    if (c.systems.contains(args->name)) {
      const hw::System& s = c.systems.get(args->name);
      if (args->json) {
        std::printf("%s\n", system_json(s).dump(2).c_str());
      } else {
        print_system(s);
      }
      return 0;
    }
    if (c.accelerators.contains(args->name)) {
      const hw::Accelerator& a = c.accelerators.get(args->name);
      if (args->json) {
        Json j = accelerator_json(a);
        j["kind"] = "accelerator";
        std::printf("%s\n", j.dump(2).c_str());
      } else {
        print_accelerator(a);
      }
      return 0;
    }
    // Neither: the system registry's message lists systems; add accelerators.
    throw core::Error(c.systems.unknown_message(args->name) + "; accelerators: " +
                      core::join_names(c.accelerators.names()));
  }};
}

}  // namespace agentsim::cli
