// agentsim report OUT_A OUT_B [...] --out compare.html: overlays finished runs, the first the baseline.
#include <cstdio>
#include <memory>

#include "experiments/cli/command.hpp"
#include "experiments/output/run_comparison.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"

namespace agentsim::cli {

Command add_report_command(CLI::App& app, const Context&) {
  struct Args {
    std::vector<std::string> dirs;
    std::string out = "compare.html";
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "compare finished runs: overlay their headline curves and tabulate read-off deltas (first = baseline)");
  sub->add_option("runs", args->dirs, "run folders written by `agentsim run --out DIR` (two or more)")
      ->required();
  sub->add_option("--out", args->out, "the comparison page to write")->capture_default_str();
  return Command{sub, [args]() {
                   if (args->dirs.size() < 2) {
                     throw core::Error(core::SourceLocation{"report", 0, ""},
                                       "needs at least two run folders (the first is the baseline)");
                   }
                   const auto tables =
                       exp::read_run_tables(args->dirs);  // every folder read before anything is written
                   core::write_file_atomically(args->out, exp::comparison_html(tables));
                   const auto deltas = exp::readoff_deltas(tables);
                   std::printf("wrote %s (%zu runs, %zu read-off deltas against %s)\n", args->out.c_str(),
                               tables.size(), deltas.size(), tables.front().label.c_str());
                   return 0;
                 }};
}

}  // namespace agentsim::cli
