#include "experiments/config/option_sections.hpp"

#include <algorithm>
#include <cstdio>

#include "experiments/config/deployment_config.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/config/serving_config.hpp"
#include "experiments/config/workload_config.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::exp {

const std::vector<OptionSection>& option_sections() {
  static const std::vector<OptionSection> sections = {
      {"", "the experiment file's top level", experiment_options()},
      {"deployment", "how the model is laid out on each system (search takes lists of these keys)",
       deployment_options()},
      {"serving", "engine options of every replica", serving_options()},
      {"serving.efficiency", "achieved fractions of peak until calibration", efficiency_options()},
      {"serving.kv_cache", "KV blocks, prefix caching, lower tiers and retention during tool calls", kv_cache_options()},
      {"serving.disaggregation", "separate prefill and decode replicas", disaggregation_options()},
      {"serving.context_wait", "TensorRT-LLM's waits that hold new prompts back", context_wait_options()},
      {"workload", "where sessions come from and how they are replayed", workload_options()},
      {"readoffs", "targets read off each system's curve", readoff_options()},
      {"slo", "SLO tiers: max agents per MW found by bisection on concurrency", slo_options()},
      {"power", "power accounting", power_options()},
      {"record", "tables kept for results.h5", record_options()},
      {"what_if", "catalog overrides, keyed by catalog entry name", what_if_options()},
      {"limits", "resource limits checked before simulating", limits_options()},
  };
  return sections;
}

namespace {

std::string render(const OptionSection& s) {
  std::size_t wn = 4, wt = 4, wd = 7;
  for (const auto& o : s.options) {
    wn = std::max(wn, o.name.size());
    wt = std::max(wt, o.type.size());
    wd = std::max(wd, o.default_value.empty() ? std::size_t{8} : o.default_value.size());
  }
  std::string out = (s.name.empty() ? std::string("(top level)") : s.name) + ": " + s.help + "\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-*s  %-*s  %-*s  %s\n", static_cast<int>(wn), "name", static_cast<int>(wt),
                "type", static_cast<int>(wd), "default", "help");
  out += buf;
  for (const auto& o : s.options) {
    const std::string def = o.default_value.empty() ? "required" : std::string(o.default_value);
    std::snprintf(buf, sizeof buf, "  %-*s  %-*s  %-*s  %.*s\n", static_cast<int>(wn), std::string(o.name).c_str(),
                  static_cast<int>(wt), std::string(o.type).c_str(), static_cast<int>(wd), def.c_str(),
                  static_cast<int>(o.help.size()), o.help.data());
    out += buf;
  }
  return out;
}

}  // namespace

std::string describe_section(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& s : option_sections()) {
    if (s.name == name || (name == "top" && s.name.empty())) return render(s);
    names.push_back(s.name.empty() ? "top" : s.name);
  }
  std::string msg = "unknown section '" + name + "'";
  const std::string guess = core::closest_match(name, names);
  if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
  throw core::Error(core::SourceLocation{"describe", 0, name}, msg + "; sections: " + core::join_names(names));
}

std::string describe_all() {
  std::string out;
  for (const auto& s : option_sections()) out += render(s) + "\n";
  return out;
}

}  // namespace agentsim::exp
