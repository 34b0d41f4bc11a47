// agentsim plan --model M --agents N --agent-speed S [--ttft-p90 T] [--systems a,b] [--experiment BASE]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "experiments/run/capacity_plan.hpp"
#include "experiments/run/plan_ranking.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/option_values.hpp"
#include "experiments/run/sweep_ranks.hpp"
#include "experiments/config/experiment.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace agentsim::cli {

Command add_plan_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string model;
    long long agents = 0;
    double agent_speed = 0;
    std::string ttft = "";
    int speed_percentile = 10;
    std::vector<std::string> systems;
    std::string experiment;
    std::vector<std::string> sets;
    long long max_per_replica = 4096;
    std::string rack_power = "41kW";
    int jobs = 0;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "plan", "capacity plan: systems, racks, GPUs and MW per system type for N agents at an SLO");
  sub->add_option("--model", args->model, "model catalog name")->required();
  sub->add_option("--agents", args->agents, "concurrent agents to serve")->required()->check(positive_number());
  sub->add_option("--agent-speed", args->agent_speed, "per-agent output tok/s the SLO percentile must reach")
      ->required()->check(positive_number());
  sub->add_option("--ttft-p90", args->ttft, "p90 TTFT limit, e.g. 2s (default: none)");
  sub->add_option("--speed-percentile", args->speed_percentile, "percentile of requests held to the speed: 10 or 50")
      ->capture_default_str()->check(CLI::IsMember({10, 50}));
  sub->add_option("--systems", args->systems, "system catalog names (default: the base experiment's)")->delimiter(',');
  sub->add_option("--experiment", args->experiment,
                  "base experiment: workload, serving and deployment search (default: the default experiment)");
  sub->add_option("--set", args->sets, "override a base experiment key (repeatable)");
  sub->add_option("--max-agents-per-replica", args->max_per_replica, "upper bound of the per-replica search")
      ->capture_default_str()->check(positive_number());
  sub->add_option("--rack-power", args->rack_power, "rack power budget for systems that are not racks themselves")
      ->capture_default_str();
  sub->add_option("-j,--jobs", args->jobs, "worker threads (0 = one per core)")
      ->capture_default_str()->check(non_negative_number());

  return Command{sub, [args, &ctx]() {
    const auto t0 = std::chrono::steady_clock::now();
    const double rack_power_w = option_quantity("--rack-power", args->rack_power, core::Dimension::kPower);
    if (!(rack_power_w > 0)) throw core::Error("--rack-power: expected a power > 0, got '" + args->rack_power + "'");
    double ttft_s = 0;  // 0: no TTFT limit
    if (!args->ttft.empty()) {
      ttft_s = option_quantity("--ttft-p90", args->ttft, core::Dimension::kTime);
      // 0 would read as "no limit" below; a limit no request can meet is a mistake, not that.
      if (!(ttft_s > 0)) {
        throw core::Error("--ttft-p90: expected a time > 0 (omit the option for no TTFT limit), got '" + args->ttft + "'");
      }
    }
    exp::SweepRanks ranks;
    std::vector<std::string> sets = args->sets;
    sets.push_back("model=" + args->model);
    if (!args->systems.empty()) {
      std::string list;
      for (const auto& s : args->systems) list += (list.empty() ? "" : ",") + s;
      sets.push_back("systems=[" + list + "]");
    }
    const std::string base = args->experiment.empty()
                                 ? (std::filesystem::path(ctx.root) / "experiments/examples/agentic-v4.1-flash.yaml").string()
                                 : args->experiment;
    // Sized per replica: one replica per simulated deployment, whatever the base experiment fills.
    sets.insert(sets.begin(), "serving.replicas=1");
    exp::Experiment e = exp::load_experiment(base, ctx.root, sets);
    const auto sessions = exp::load_sessions(e);
    exp::rank_plans(e, sessions);
    exp::CapacityQuestion q;
    q.agents = args->agents;
    q.slo.agent_tok_s = args->agent_speed;
    q.slo.speed_percentile = args->speed_percentile;
    q.slo.ttft_percentile = 90;
    q.slo.ttft_s = ttft_s;
    q.max_agents_per_replica = args->max_per_replica;
    q.rack_power_w = rack_power_w;
    exp::ExecOptions opt;
    opt.threads = args->jobs > 0 ? args->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    opt.progress = ::isatty(2) != 0;
    const auto answers = exp::capacity_plan(e, sessions, q, opt, ranks);
    if (ranks.rank() != 0) return 0;
    std::printf("plan: %lld agents of %s at p%d per-agent speed >= %g tok/s%s%s (workload of %s)\n", args->agents,
                e.model.name.c_str(), q.slo.speed_percentile, q.slo.agent_tok_s,
                q.slo.ttft_s > 0 ? ", p90 TTFT <= " : "", q.slo.ttft_s > 0 ? args->ttft.c_str() : "", e.name.c_str());
    std::printf("%-12s %-10s %9s %9s %8s %13s %6s %7s %9s %9s  %s\n", "system", "deployment", "agents/r", "replicas",
                "systems", "systems band", "racks", "GPUs", "MW run", "MW plate", "note");
    for (const auto& a : answers) {
      if (!a.feasible) {
        std::printf("%-12s %-10s %9s %9s %8s %13s %6s %7s %9s %9s  not feasible: %.300s\n", a.system.c_str(), "-", "-",
                    "-", "-", "-", "-", "-", "-", "-", a.reason.c_str());
        continue;
      }
      const std::string band = a.systems_lo > 0 ? std::to_string(a.systems_lo) + "-" + std::to_string(a.systems_hi) : "-";
      const std::string band_text = exp::band_note(a);
      const std::string note = band_text.empty() ? a.reason : band_text + (a.reason.empty() ? "" : "; ") + a.reason;
      std::printf("%-12s %-10s %9lld %9lld %8lld %13s %6lld %7lld %9.2f %9.2f  %s\n", a.system.c_str(),
                  a.deployment.c_str(), a.agents_per_replica, a.replicas, a.systems, band.c_str(), a.racks,
                  a.accelerators, a.runtime_mw, a.provisioned_mw, note.c_str());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("(%.1f s wall; MW run = modelled facility power at the operating point, MW plate = nameplate; systems "
                "band = systems needed at the 10th-90th percentile of the cross-validated throughput error of the "
                "run's regime)\n", wall);
    return 0;
  }};
}

}  // namespace agentsim::cli
