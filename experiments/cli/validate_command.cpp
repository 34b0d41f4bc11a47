// agentsim validate EXP.yaml --measured FILE.csv [--json] [-j N]
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "calibration/measured_runs.hpp"
#include "calibration/validation_report.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/experiment.hpp"
#include "experiments/validation_runner.hpp"

namespace agentsim::cli {

Command add_validate_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string experiment;
    std::string measured;
    bool json = false;
    int jobs = 0;
    int worst = 5;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("validate", "predict measured serving runs and report the errors");
  sub->add_option("experiment", args->experiment, "base experiment YAML (serving options, window, seed)")->required();
  sub->add_option("--measured", args->measured, "measured-runs CSV (schema: docs/calibration.md)")->required();
  sub->add_flag("--json", args->json, "print JSON");
  sub->add_option("-j,--jobs", args->jobs, "worker threads (0 = one per core)")->capture_default_str();
  sub->add_option("--worst", args->worst, "how many worst errors to list")->capture_default_str();

  return Command{sub, [args, &ctx]() {
    const exp::Experiment base = exp::load_experiment(args->experiment, ctx.root);
    const auto runs = calib::load_measured_runs(args->measured);
    const int threads = args->jobs > 0 ? args->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto predicted = exp::predict_measured_runs(base, ctx.root, runs, args->measured, threads);
    const calib::ValidationReport rep = calib::compare(runs, predicted);
    const auto worst = rep.worst(static_cast<std::size_t>(std::max(0, args->worst)));
    if (args->json) {
      nlohmann::ordered_json j;
      j["measured"] = args->measured;
      for (const auto& e : rep.errors) {
        j["errors"].push_back({{"id", e.id}, {"metric", e.metric}, {"measured", e.measured},
                               {"predicted", e.predicted}, {"error_pct", e.error_pct}});
      }
      for (const auto& s : rep.summaries) {
        j["mape"].push_back({{"metric", s.metric}, {"rows", s.rows}, {"mape_pct", s.mape_pct},
                             {"max_abs_pct", s.max_abs_pct}});
      }
      for (const auto& e : worst) j["worst"].push_back({{"id", e.id}, {"metric", e.metric}, {"error_pct", e.error_pct}});
      std::fputs((j.dump(2) + "\n").c_str(), stdout);
      return 0;
    }
    std::printf("%-16s %-22s %12s %12s %9s\n", "row", "metric", "measured", "predicted", "error");
    for (const auto& e : rep.errors) {
      std::printf("%-16s %-22s %12.5g %12.5g %+8.1f%%\n", e.id.c_str(), e.metric.c_str(), e.measured, e.predicted,
                  e.error_pct);
    }
    std::printf("\n%-22s %5s %9s %9s\n", "metric", "rows", "MAPE", "max |e|");
    for (const auto& s : rep.summaries) {
      std::printf("%-22s %5d %8.1f%% %8.1f%%\n", s.metric.c_str(), s.rows, s.mape_pct, s.max_abs_pct);
    }
    std::printf("\nworst:\n");
    for (const auto& e : worst) std::printf("  %-16s %-22s %+8.1f%%\n", e.id.c_str(), e.metric.c_str(), e.error_pct);
    return 0;
  }};
}

}  // namespace agentsim::cli
