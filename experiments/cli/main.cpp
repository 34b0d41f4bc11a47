// The agentsim command line. Bad input exits with code 2 and writes nothing.
#include <cstdio>
#include <vector>

#include "experiments/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "sim/core/error.hpp"

int main(int argc, char** argv) {
  using namespace agentsim;
  CLI::App app{"agentsim: a discrete-event simulator of agentic LLM serving clusters"};
  app.require_subcommand(1);
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
