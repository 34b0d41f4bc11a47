#pragma once
// Each `agentsim` subcommand lives in its own file and registers itself on the
// app; its action runs after parsing. Actions throw core::Error on bad input
// (main turns it into exit code 2) and return the process exit code otherwise.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace agentsim::cli {

struct Context {
  std::string root;  // where hwmodels/catalog and workloads/catalog live
};

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> action;
};

Command add_run_command(CLI::App& app, const Context& ctx);
Command add_validate_command(CLI::App& app, const Context& ctx);
Command add_model_command(CLI::App& app, const Context& ctx);
Command add_catalog_command(CLI::App& app, const Context& ctx);
Command add_trace_command(CLI::App& app, const Context& ctx);
Command add_calibrate_command(CLI::App& app, const Context& ctx);
Command add_describe_command(CLI::App& app, const Context& ctx);
Command add_plan_command(CLI::App& app, const Context& ctx);
Command add_explain_command(CLI::App& app, const Context& ctx);
Command add_report_command(CLI::App& app, const Context& ctx);

}  // namespace agentsim::cli
