// The agentsim command line. Bad input exits with code 2 and writes nothing.
#include <cstdio>
#include <exception>
#include <string_view>
#include <utility>
#include <vector>

#include "experiments/config/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/output/results_h5.hpp"
#include "sim/core/error.hpp"

namespace {

// One worked example per command, shown at the end of its --help (tests/experiments/cli/cli_test.cpp
// checks every subcommand has one). Keys are the command path.
constexpr std::pair<std::string_view, std::string_view> kExamples[] = {
    {"run", "agentsim run experiments/examples/agentic-v4.1-flash.yaml --out out -j 2"},
    {"validate", "agentsim validate experiments/validation/validate.yaml --measured "
                 "experiments/validation/measured_runs.csv --json"},
    {"model", "agentsim model show deepseek-v4.1-flash --plan tp=8 --context 100000"},
    {"model list", "agentsim model list"},
    {"model show", "agentsim model show llama-3.1-70b --plan tp=4 --context 32768 --json"},
    {"catalog", "agentsim catalog show gb300-nvl72"},
    {"catalog list", "agentsim catalog list"},
    {"catalog show", "agentsim catalog show h200 --json"},
    {"trace", "agentsim trace stats workloads/traces/claude-code/requests.csv"},
    {"trace import", "agentsim trace import claude-code-csv workloads/traces/claude-code/requests.csv --out cc.h5"},
    {"trace stats", "agentsim trace stats workloads/traces/mooncake/conversation_trace.jsonl"},
    {"trace fit", "agentsim trace fit workloads/traces/claude-code/requests.csv --out generator.yaml"},
    {"calibrate", "agentsim calibrate --backend cpu --out cal.h5 --quick"},
    {"calibrate fit", "agentsim calibrate fit cal.h5 --out profile.yaml"},
    {"calibrate check", "agentsim calibrate check cal.h5 profile.yaml"},
    {"calibrate show", "agentsim calibrate show cal.h5"},
    {"calibrate import-published", "agentsim calibrate import-published --kernels calibration/data/published/kernels --out calibration/data/profiles"},
    {"describe", "agentsim describe serving.kv_cache"},
    {"plan", "agentsim plan --model deepseek-v4.1-flash --agents 20000 --agent-speed 100 --ttft-p90 2s "
             "--systems gb300-nvl72,hgx-b300"},
    {"explain", "agentsim explain --model deepseek-r1 --system hgx-h200 --plan tp=8,ep=8 --batch decode=64@1536"},
    {"report", "agentsim run experiments/examples/report-demo.yaml --out out/base\n"
               "  agentsim run experiments/examples/report-demo-whatif.yaml --out out/whatif\n"
               "  agentsim report out/base out/whatif --out compare.html\n"
               "Each folder needs its summary.csv and readoffs.csv; a missing one is an error (exit 2) and nothing is "
               "written."},
};

// Sets the example footer of `sub` and of its subcommands (path: "trace import").
void add_examples(CLI::App* sub, const std::string& path) {
  for (const auto& [name, example] : kExamples) {
    if (name == path) sub->footer("\nExample:\n  " + std::string(example));
  }
  for (CLI::App* child : sub->get_subcommands({})) add_examples(child, path + " " + child->get_name());
}

// The whole command line; main() adds only a last catch for what escapes the setup.
int run_main(int argc, char** argv) {
  using namespace agentsim;
  CLI::App app{"agentsim: a discrete-event simulator of agentic LLM serving clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "agentsim " AGENTSIM_VERSION " (source revision " + exp::source_revision() + ")");
  cli::Context ctx{exp::default_root()};
  app.add_option("--root", ctx.root, "folder holding hwmodels/catalog and workloads/catalog")
      ->capture_default_str();

  // One line per subcommand; each lives in cli/<name>_command.cpp.
  std::vector<cli::Command> commands;
  commands.push_back(cli::add_run_command(app, ctx));
  commands.push_back(cli::add_validate_command(app, ctx));
  commands.push_back(cli::add_model_command(app, ctx));
  commands.push_back(cli::add_catalog_command(app, ctx));
  commands.push_back(cli::add_trace_command(app, ctx));
  commands.push_back(cli::add_calibrate_command(app, ctx));
  commands.push_back(cli::add_describe_command(app, ctx));
  commands.push_back(cli::add_plan_command(app, ctx));
  commands.push_back(cli::add_explain_command(app, ctx));
  commands.push_back(cli::add_report_command(app, ctx));

  for (const auto& c : commands) add_examples(c.app, c.app->get_name());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    for (const auto& c : commands) {
      if (c.app->parsed()) return c.action();
    }
  } catch (const core::Error& e) {
    std::fprintf(stderr, "agentsim: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agentsim: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agentsim: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "agentsim: internal error\n");
  }
  return 1;
}
