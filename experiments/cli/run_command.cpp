// agentsim run EXPERIMENT --out DIR
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "experiments/atomic_file.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/experiment.hpp"
#include "experiments/runner.hpp"
#include "experiments/summary_csv.hpp"
#include "experiments/terminal_table.hpp"

namespace agentsim::cli {

Command add_run_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string experiment;
    std::string out = "out";
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("run", "run an experiment's sweep and write DIR/summary.csv");
  sub->add_option("experiment", args->experiment, "experiment YAML")->required();
  sub->add_option("--out", args->out, "output folder")->capture_default_str();

  return Command{sub, [args, &ctx]() {
    const auto t0 = std::chrono::steady_clock::now();
    const exp::Experiment e = exp::load_experiment(args->experiment, ctx.root);
    const auto sessions = exp::load_sessions(e);
    std::printf("experiment %s: %s on %s (tp=%d), %zu sessions from %s\n", e.name.c_str(),
                e.model.name.c_str(), e.system.name.c_str(), e.deployment.tp, sessions.sessions.size(),
                e.workload.use_generator ? "the generator" : e.workload.trace_path.c_str());
    std::fflush(stdout);
    std::vector<exp::RunResult> runs;
    for (double level : e.workload.levels) runs.push_back(exp::run_point(e, sessions, level));
    std::fputs(exp::terminal_table(runs).c_str(), stdout);
    const std::string csv_path = (std::filesystem::path(args->out) / "summary.csv").string();
    exp::write_file_atomically(csv_path, exp::summary_csv(runs));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("wrote %s (%zu runs) in %.2f s wall\n", csv_path.c_str(), runs.size(), wall);
    return 0;
  }};
}

}  // namespace agentsim::cli
