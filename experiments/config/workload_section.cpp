#include <algorithm>
#include <array>
#include <filesystem>

#include "sim/core/decode_helpers.hpp"
#include "experiments/config/generator_yaml.hpp"
#include "experiments/config/workload_config.hpp"
#include "sim/core/suggest.hpp"
#include "experiments/traceio/trace_files.hpp"
#include "workloads/sessions/context_limit.hpp"

namespace agentsim::exp {
using core::OptionSpec;
using core::YamlNode;
namespace fs = std::filesystem;
using core::Dimension;

namespace {

constexpr std::array kWorkloadKeys = {
    OptionSpec{"trace", "path", "", "session trace, relative to this file (or use generator or profile)"},
    OptionSpec{"format", "string", "detected", "trace format: agentsim, agentsim-h5, azure, claude-code-csv, claude-code-json, mooncake"},
    OptionSpec{"concurrency", "list of integers or auto", "",
               "closed-loop agents, one run each; auto: 1, 2, 4, ... until every read-off is bracketed, then bisect"},
    OptionSpec{"max_concurrency", "integer", "16384", "concurrency auto: the largest level it may run"},
    OptionSpec{"concurrency_tolerance", "number", "0.02",
               "concurrency auto: narrow each bracket until its width is at most this fraction of agents"},
    OptionSpec{"max_probes", "integer", "6", "concurrency auto: the most narrowing runs per bracket"},
    OptionSpec{"warmup", "time", "", "excluded from the metrics"},
    OptionSpec{"window", "time", "", "measurement window after warm-up"},
    OptionSpec{"start_spread", "time", "0s", "agents start uniformly within this time"},
    OptionSpec{"mode", "string", "closed-loop", "replay mode: closed-loop, open-loop, poisson"},
    OptionSpec{"session_rates", "list of numbers", "", "poisson: session arrivals per second, one run each"},
    OptionSpec{"time_scales", "list of numbers", "[1]", "open-loop: recorded times x scale, one run each"},
    OptionSpec{"random_start", "bool", "false", "closed-loop: each agent starts at a turn drawn uniformly over the pool's turns (steady state)"},
    OptionSpec{"session_limit", "integer", "0",
               "closed-loop: a finite run of this many root sessions (agents stop when none are left; the window ends "
               "with the last answer, as a benchmark of N prompts measures); 0: agents cycle through the sessions"},
    OptionSpec{"human_gap_cap", "time", "", "cap on human (end_turn) gaps; absent = as recorded"},
    OptionSpec{"tool_gap_cap", "time", "", "cap on tool gaps (incl. permission prompts); absent = as recorded"},
    OptionSpec{"generator", "path or map", "", "synthetic generator config (YAML file or inline)"},
    OptionSpec{"sessions", "integer", "1000", "sessions drawn from the generator"},
    OptionSpec{"profile", "string", "none",
               "named session profile (workloads/catalog/profiles/): agentperf = the agentic benchmark's published "
               "session shape (docs/workload-profile.md); generator keys given beside it override the profile's"},
    OptionSpec{"max_context", "integer or model", "model",
               "trace replay: context limit; a turn over it drops its oldest turns as a harness does (prefix broken); "
               "model = the model's limit"},
    OptionSpec{"truncated_context_fraction", "number", "0.5", "max_context: prompt after a truncation, share of the limit"},
    OptionSpec{"tool_delay", "recorded, {scaled: x} or {median, p90}", "recorded",
               "trace replay: tool delays as recorded, recorded x scale, or drawn from a log-normal (seconds)"},
};

}  // namespace

std::span<const OptionSpec> workload_options() { return kWorkloadKeys; }

namespace {
constexpr std::array kToolDelayKeys = {
    OptionSpec{"scaled", "number", "", "recorded tool delay x this"},
    OptionSpec{"median", "time", "", "drawn: median tool delay"},
    OptionSpec{"p90", "time", "", "drawn: 90th percentile (>= median)"},
};

wl::ToolDelay decode_tool_delay(const YamlNode& n) {
  wl::ToolDelay d;
  if (!n.is_map()) {
    if (n.as_string() != "recorded") throw n.error("expected recorded, {scaled: x} or {median, p90}");
    return d;
  }
  n.check_keys(kToolDelayKeys);
  if (n.has("scaled")) {
    if (n.has("median") || n.has("p90")) throw n.error("give either scaled or {median, p90}, not both");
    d.kind = wl::ToolDelay::Kind::kScaled;
    d.scale = n.at("scaled").as_number();
    if (!(d.scale >= 0 && d.scale <= 1e6)) throw n.at("scaled").error("expected a number in [0, 1e6]");
    return d;
  }
  d.kind = wl::ToolDelay::Kind::kDrawn;
  d.drawn.median = n.at("median").as_quantity(Dimension::kTime);
  d.drawn.p90 = n.at("p90").as_quantity(Dimension::kTime);
  if (!(d.drawn.median > 0 && d.drawn.median <= 1e6)) throw n.at("median").error("expected a positive time up to 1e6 s");
  if (!(d.drawn.p90 >= d.drawn.median && d.drawn.p90 <= 1e6)) throw n.at("p90").error("expected a time >= median, up to 1e6 s");
  return d;
}
}  // namespace

void apply_replay_rules(wl::Trace& trace, const WorkloadConfig& w, long long model_max_context, std::uint64_t seed) {
  if (!w.use_generator) {
    const long long limit = w.max_context_tokens > 0 ? w.max_context_tokens : model_max_context;
    const long long shortest = wl::shortest_prompt_tokens(trace);
    if (limit > 0 && limit <= shortest) {
      throw core::Error(w.max_context_at, "max_context " + std::to_string(limit) +
                                              " tokens is not above the trace's shortest prompt (" +
                                              std::to_string(shortest) + " tokens): every turn would be cut");
    }
    if (limit > 0) wl::apply_context_limit(trace, limit, w.truncated_context_fraction);
  }
  wl::apply_tool_delay(trace, w.tool_delay, seed);
}

WorkloadConfig decode_workload(const YamlNode& wl, const std::string& path) {
  WorkloadConfig w;
  wl.check_keys(kWorkloadKeys);
  if (auto prof = wl.find("profile")) {
    if (wl.has("trace")) throw prof->error("give either trace or profile, not both");
    w.profile = prof->as_string();
    const auto names = profile_names();
    if (std::find(names.begin(), names.end(), w.profile) == names.end()) {
      throw prof->error(core::unknown_name_message("session profile", w.profile, names));
    }
    w.use_generator = true;
    w.generator = load_profile(w.profile);
    if (auto gen = wl.find("generator")) {
      if (!gen->is_map()) throw gen->error("beside a profile, expected a map of generator keys overriding it");
      w.generator = decode_generator(*gen, w.generator);
    }
    w.generated_sessions = static_cast<int>(bounded_int(wl, "sessions", 1000, 1, 10'000'000));
  } else if (auto gen = wl.find("generator")) {
    if (wl.has("trace")) throw gen->error("give either trace or generator, not both");
    w.use_generator = true;
    if (gen->is_map()) {
      w.generator = decode_generator(*gen);
    } else {
      fs::path gp = gen->as_string();
      if (gp.is_relative()) gp = fs::path(path).parent_path() / gp;
      if (!fs::is_regular_file(gp)) throw gen->error("generator file not found: " + gp.lexically_normal().string());
      w.generator = load_generator_yaml(gp.lexically_normal().string());
    }
    w.generated_sessions = static_cast<int>(bounded_int(wl, "sessions", 1000, 1, 10'000'000));
  } else {
    const YamlNode trace = wl.at("trace");
    fs::path tp = trace.as_string();
    if (tp.is_relative()) tp = fs::path(path).parent_path() / tp;
    w.trace_path = tp.lexically_normal().string();
    if (!fs::is_regular_file(w.trace_path) && !fs::is_directory(w.trace_path)) {
      throw trace.error("trace file not found: " + w.trace_path);
    }
  }
  w.format = wl.string_or("format", "");
  if (!w.format.empty()) {
    const auto& names = trace_file_format_names();
    if (std::find(names.begin(), names.end(), w.format) == names.end()) {
      throw wl.at("format").error("unknown trace format '" + w.format +
                                  "'; valid: " + core::join_names(names));
    }
  }
  const std::string mode = wl.string_or("mode", "closed-loop");
  if (mode == "closed-loop") {
    w.mode = ReplayMode::kClosedLoop;
    const YamlNode conc = wl.at("concurrency");
    if (!conc.is_sequence() && !conc.is_map() && conc.as_string() == "auto") {
      w.auto_concurrency = true;
      w.max_concurrency = static_cast<int>(bounded_int(wl, "max_concurrency", 16384, 1, 10'000'000));
      w.concurrency_tolerance = fraction(wl, "concurrency_tolerance", 0.02);
      w.max_probes = static_cast<int>(bounded_int(wl, "max_probes", 6, 0, 64));
      for (long long c = 1; c <= w.max_concurrency; c *= 2) w.levels.push_back(static_cast<double>(c));
      if (w.levels.back() < w.max_concurrency) w.levels.push_back(static_cast<double>(w.max_concurrency));
    } else if (!conc.is_sequence()) {
      throw conc.error("expected a list of concurrency levels or auto");
    } else {
      for (const char* key : {"max_concurrency", "concurrency_tolerance", "max_probes"}) {
        if (wl.has(key)) throw wl.at(key).error(std::string(key) + " applies to concurrency: auto only");
      }
    }
    for (const auto& item : w.auto_concurrency ? std::vector<YamlNode>{} : conc.items()) {
      const long long c = item.as_integer();
      if (c < 1 || c > 10'000'000) throw item.error("expected a concurrency in [1, 10000000]");
      if (std::find(w.concurrency.begin(), w.concurrency.end(), c) != w.concurrency.end()) {
        throw item.error("concurrency " + std::to_string(c) + " listed twice: expected distinct levels (one run each)");
      }
      w.concurrency.push_back(static_cast<int>(c));
      w.levels.push_back(static_cast<double>(c));
    }
    if (!w.auto_concurrency && w.concurrency.empty()) {
      throw conc.error("expected a list of concurrency levels or auto");
    }
  } else if (mode == "open-loop") {
    w.mode = ReplayMode::kOpenLoop;
    w.levels = wl.has("time_scales") ? positive_list(wl.at("time_scales")) : std::vector<double>{1.0};
  } else if (mode == "poisson") {
    w.mode = ReplayMode::kPoisson;
    w.levels = positive_list(wl.at("session_rates"));
  } else {
    throw wl.at("mode").error("unknown replay mode '" + mode + "'; valid: closed-loop, open-loop, poisson");
  }
  if (wl.has("random_start")) w.random_start = wl.at("random_start").as_bool();
  if (wl.has("session_limit")) {
    if (w.mode != ReplayMode::kClosedLoop) throw wl.at("session_limit").error("session_limit applies to closed-loop replay only");
    w.session_limit = bounded_int(wl, "session_limit", 0, 0, 1'000'000'000);
  }
  if (auto mc = wl.find("max_context")) {
    if (w.use_generator) throw mc->error("max_context applies to a replayed trace; a generator or profile sets max_context_tokens");
    w.max_context_at = mc->where();
    if (!mc->is_map() && !mc->is_sequence() && mc->as_string() == "model") {
      w.max_context_tokens = 0;
    } else {
      w.max_context_tokens = mc->as_integer();
      if (w.max_context_tokens < 2 || w.max_context_tokens > wl::kMaxTurnTokens) {
        throw mc->error("expected model or a context limit in tokens, in [2, 1000000000]");
      }
    }
  }
  if (wl.has("truncated_context_fraction")) {
    if (w.use_generator) throw wl.at("truncated_context_fraction").error("applies to a replayed trace; a generator or profile sets its own");
    w.truncated_context_fraction = fraction(wl, "truncated_context_fraction", 0.5);
  }
  if (auto td = wl.find("tool_delay")) w.tool_delay = decode_tool_delay(*td);
  w.human_gap_cap_s = wl.quantity_or("human_gap_cap", Dimension::kTime, -1.0);
  w.tool_gap_cap_s = wl.quantity_or("tool_gap_cap", Dimension::kTime, -1.0);
  w.warmup_s = wl.at("warmup").as_quantity(Dimension::kTime);
  w.window_s = wl.at("window").as_quantity(Dimension::kTime);
  if (!(w.window_s > 0)) throw wl.at("window").error("expected a positive window");
  w.start_spread_s = wl.quantity_or("start_spread", Dimension::kTime, 0.0);
  return w;
}

}  // namespace agentsim::exp
