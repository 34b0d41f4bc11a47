// agentsim describe [SECTION]: the documented options of the experiment YAML.
#include <cstdio>
#include <memory>

#include "experiments/cli/command.hpp"
#include "experiments/config/option_sections.hpp"

namespace agentsim::cli {

Command add_describe_command(CLI::App& app, const Context&) {
  auto section = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("describe", "print the experiment YAML's options: name, type, default, help");
  sub->add_option("section", *section, "top, deployment, serving, serving.efficiency, serving.kv_cache, "
                                       "serving.disaggregation, workload, readoffs, slo, power, record, what_if, "
                                       "limits (default: all)");
  return Command{sub, [section]() {
    std::fputs(section->empty() ? exp::describe_all().c_str() : exp::describe_section(*section).c_str(), stdout);
    return 0;
  }};
}

}  // namespace agentsim::cli
