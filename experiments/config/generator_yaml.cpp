#include "experiments/config/generator_yaml.hpp"

#include <array>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "experiments/config/catalog.hpp"
#include "sim/core/decode_helpers.hpp"
#include "workloads/sessions/import_options.hpp"

namespace agentsim::exp {
using core::OptionSpec;
using core::YamlNode;
namespace fs = std::filesystem;
namespace {

constexpr std::array kKeys = {
    OptionSpec{"turns", "{median, p90}", "", "turns per session"},
    OptionSpec{"initial_context_tokens", "{median, p90}", "", "first prompt, tokens"},
    OptionSpec{"growth_tokens", "{median, p90}", "", "new prompt tokens per later turn"},
    OptionSpec{"output_tokens", "{median, p90}", "", "answer tokens per turn"},
    OptionSpec{"tool_gap_s", "{median, p90}", "", "tool-call delay, seconds"},
    OptionSpec{"human_gap_s", "{median, p90}", "", "human delay, seconds"},
    OptionSpec{"human_gap_fraction", "number", "0.1", "share of gaps that wait for a human"},
    OptionSpec{"compaction_probability", "number", "0", "per-turn chance the context is compacted"},
    OptionSpec{"compacted_context_tokens", "integer", "20000", "prompt right after compaction"},
    OptionSpec{"shared_system_prompt_tokens", "integer", "0", "leading tokens shared by every session"},
    OptionSpec{"max_context_tokens", "integer", "200000", "prompt cap"},
    OptionSpec{"block_size_tokens", "integer", "64", "prefix block size"},
    OptionSpec{"range_ratio", "number", "1",
               "first prompts and outputs uniform in [ratio x draw, draw] (benchmark_serving --random-range-ratio)"},
    OptionSpec{"reasoning_fraction", "number", "0", "share of turns drawing reasoning_output_tokens (long reasoning turns)"},
    OptionSpec{"reasoning_output_tokens", "{median, p90}", "", "answer tokens of a reasoning turn"},
    OptionSpec{"repositories", "integer", "0", "code repositories the generated agents work in; the agents in one share its prompt prefix"},
    OptionSpec{"repository_tokens", "{median, p90}", "", "repository prefix after the system prompt, tokens"},
    OptionSpec{"truncation", "string", "clip",
               "a prompt over max_context_tokens: clip (cut, prefix kept) or drop_oldest (oldest turns dropped, prefix broken)"},
    OptionSpec{"truncated_context_fraction", "number", "0.5", "drop_oldest: prompt after a drop, share of max_context_tokens"},
    OptionSpec{"growth_length_exponent", "number", "0", "growth per turn x (turns / median turns)^exponent"},
    OptionSpec{"profile", "string", "", "start from a named session profile (e.g. agentperf); the other keys override it"},
    OptionSpec{"token_scale", "number", "1",
               "every token size (system prompt, repository, first prompt, growth, compaction, context limit) x this"},
};
constexpr std::array kDistKeys = {
    OptionSpec{"median", "number", "", "50th percentile"},
    OptionSpec{"p90", "number", "", "90th percentile (>= median)"},
    OptionSpec{"min", "number", "none", "draws below are raised to this"},
    OptionSpec{"max", "number", "none", "draws above are cut to this"},
};

wl::LogNormalSpec dist(const YamlNode& parent, std::string_view key, wl::LogNormalSpec fallback) {
  auto n = parent.find(key);
  if (!n) return fallback;
  n->check_keys(kDistKeys);
  wl::LogNormalSpec s{n->at("median").as_number(), n->at("p90").as_number()};
  if (!(s.median > 0 && s.median < 1e12)) throw n->at("median").error("expected a positive number below 1e12");
  if (!(s.p90 >= s.median)) throw n->at("p90").error("expected a number >= median");
  if (!(s.p90 < 1e12)) throw n->at("p90").error("expected a number below 1e12");
  if (n->has("min")) {
    s.min = n->at("min").as_number();
    if (!(s.min > 0 && s.min <= s.median)) throw n->at("min").error("expected a positive number <= median");
  }
  if (n->has("max")) {
    s.max = n->at("max").as_number();
    if (!(s.max >= s.p90 && s.max < 1e12)) throw n->at("max").error("expected a number >= p90 and below 1e12");
  }
  return s;
}

double probability(const YamlNode& parent, std::string_view key, double fallback) {
  if (!parent.has(key)) return fallback;
  const double v = parent.at(key).as_number();
  if (!(v >= 0 && v <= 1)) throw parent.at(key).error("expected a number in [0, 1]");
  return v;
}

long long count(const YamlNode& parent, std::string_view key, long long fallback, long long lo,
                long long hi = 1'000'000'000) {
  if (!parent.has(key)) return fallback;
  const long long v = parent.at(key).as_integer();
  if (v < lo || v > hi) {
    throw parent.at(key).error("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

double number_in(const YamlNode& parent, std::string_view key, double fallback, double lo, double hi, bool open_lo) {
  if (!parent.has(key)) return fallback;
  const double v = parent.at(key).as_number();
  if (!((open_lo ? v > lo : v >= lo) && v <= hi)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "expected a number in %c%g, %g]", open_lo ? '(' : '[', lo, hi);
    throw parent.at(key).error(buf);
  }
  return v;
}

std::string line(const char* key, const wl::LogNormalSpec& s) {
  char buf[200];
  int n = std::snprintf(buf, sizeof buf, "%s: {median: %.6g, p90: %.6g", key, s.median, s.p90);
  if (s.min > 0) n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ", min: %.6g", s.min);
  if (s.max > 0) n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ", max: %.6g", s.max);
  std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), "}\n");
  return buf;
}

}  // namespace

std::span<const OptionSpec> generator_options() { return kKeys; }

wl::GeneratorConfig decode_generator(const YamlNode& node) { return decode_generator(node, wl::GeneratorConfig{}); }

namespace {
fs::path profile_dir() { return fs::path(default_root()) / "workloads" / "catalog" / "profiles"; }

void scale_tokens(wl::GeneratorConfig& c, double f) {
  auto spec = [f](wl::LogNormalSpec& s) {
    s.median *= f, s.p90 *= f, s.min *= f, s.max *= f;
  };
  auto tokens = [f](long long& n) { n = std::max<long long>(1, std::llround(static_cast<double>(n) * f)); };
  spec(c.initial_context_tokens);
  spec(c.growth_tokens);
  spec(c.repository_tokens);
  tokens(c.compacted_context_tokens);
  tokens(c.max_context_tokens);
  if (c.shared_system_prompt_tokens > 0) tokens(c.shared_system_prompt_tokens);
}
}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(profile_dir(), ec)) {
    if (f.path().extension() == ".yaml") names.push_back(f.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

wl::GeneratorConfig load_profile(const std::string& name) {
  const auto names = profile_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw core::Error(core::unknown_name_message("session profile", name, names));
  }
  return load_generator_yaml((profile_dir() / (name + ".yaml")).string());
}

wl::GeneratorConfig decode_generator(const YamlNode& node, const wl::GeneratorConfig& base) {
  node.check_keys(kKeys);
  wl::GeneratorConfig c = base;
  if (auto prof = node.find("profile")) {
    const std::string name = prof->as_string();
    const auto names = profile_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw prof->error(core::unknown_name_message("session profile", name, names));
    }
    c = load_profile(name);
  }
  c.turns = dist(node, "turns", c.turns);
  c.initial_context_tokens = dist(node, "initial_context_tokens", c.initial_context_tokens);
  c.growth_tokens = dist(node, "growth_tokens", c.growth_tokens);
  c.output_tokens = dist(node, "output_tokens", c.output_tokens);
  c.tool_gap_s = dist(node, "tool_gap_s", c.tool_gap_s);
  c.human_gap_s = dist(node, "human_gap_s", c.human_gap_s);
  c.human_gap_fraction = probability(node, "human_gap_fraction", c.human_gap_fraction);
  c.compaction_probability = probability(node, "compaction_probability", c.compaction_probability);
  c.compacted_context_tokens = count(node, "compacted_context_tokens", c.compacted_context_tokens, 1);
  c.shared_system_prompt_tokens = count(node, "shared_system_prompt_tokens", c.shared_system_prompt_tokens, 0);
  c.max_context_tokens = count(node, "max_context_tokens", c.max_context_tokens, 1);
  c.block_size_tokens = static_cast<int>(count(node, "block_size_tokens", c.block_size_tokens, 1, wl::kMaxBlockSizeTokens));
  c.range_ratio = number_in(node, "range_ratio", c.range_ratio, 0, 1, true);
  c.reasoning_fraction = probability(node, "reasoning_fraction", c.reasoning_fraction);
  c.reasoning_output_tokens = dist(node, "reasoning_output_tokens", c.reasoning_output_tokens);
  c.repositories = static_cast<int>(count(node, "repositories", c.repositories, 0, 1'000'000));
  c.repository_tokens = dist(node, "repository_tokens", c.repository_tokens);
  if (node.has("truncation")) {
    const std::string t = node.at("truncation").as_string();
    if (t == "clip") {
      c.truncation = wl::Truncation::kClip;
    } else if (t == "drop_oldest") {
      c.truncation = wl::Truncation::kDropOldest;
    } else {
      throw node.at("truncation").error("unknown truncation '" + t + "'; valid: clip, drop_oldest");
    }
  }
  c.truncated_context_fraction = number_in(node, "truncated_context_fraction", c.truncated_context_fraction, 0, 1, true);
  c.growth_length_exponent = number_in(node, "growth_length_exponent", c.growth_length_exponent, -2, 2, false);
  if (node.has("token_scale")) scale_tokens(c, number_in(node, "token_scale", 1, 0, 1000, true));
  // The context limit must hold the shared prefix (system prompt, repository) with room to grow.
  const double prefix = static_cast<double>(c.shared_system_prompt_tokens) +
                        (c.repositories > 0 ? std::max(c.repository_tokens.p90, c.repository_tokens.max) : 0.0);
  if (!(prefix < static_cast<double>(c.max_context_tokens))) {
    const YamlNode where = node.has("max_context_tokens") ? node.at("max_context_tokens") : node;
    throw where.error("expected max_context_tokens above the shared prefix (shared_system_prompt_tokens + repository_tokens p90 = " +
                      std::to_string(static_cast<long long>(prefix)) + " tokens)");
  }
  return c;
}

wl::GeneratorConfig load_generator_yaml(const std::string& path) { return decode_generator(YamlNode::load_file(path)); }

std::string generator_yaml(const wl::GeneratorConfig& c, const std::string& comment) {
  std::string r = "# " + comment + "\n";
  r += line("turns", c.turns);
  r += line("initial_context_tokens", c.initial_context_tokens);
  r += line("growth_tokens", c.growth_tokens);
  r += line("output_tokens", c.output_tokens);
  r += line("tool_gap_s", c.tool_gap_s);
  r += line("human_gap_s", c.human_gap_s);
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "human_gap_fraction: %.6g\ncompaction_probability: %.6g\ncompacted_context_tokens: %lld\n"
                "shared_system_prompt_tokens: %lld\nmax_context_tokens: %lld\nblock_size_tokens: %d\n",
                c.human_gap_fraction, c.compaction_probability, c.compacted_context_tokens,
                c.shared_system_prompt_tokens, c.max_context_tokens, c.block_size_tokens);
  r += buf;
  if (c.range_ratio < 1.0) {
    std::snprintf(buf, sizeof buf, "range_ratio: %.6g\n", c.range_ratio);
    r += buf;
  }
  if (c.reasoning_fraction > 0) {
    std::snprintf(buf, sizeof buf, "reasoning_fraction: %.6g\n", c.reasoning_fraction);
    r += buf + line("reasoning_output_tokens", c.reasoning_output_tokens);
  }
  if (c.repositories > 0) {
    std::snprintf(buf, sizeof buf, "repositories: %d\n", c.repositories);
    r += buf + line("repository_tokens", c.repository_tokens);
  }
  if (c.truncation == wl::Truncation::kDropOldest) {
    std::snprintf(buf, sizeof buf, "truncation: drop_oldest\ntruncated_context_fraction: %.6g\n",
                  c.truncated_context_fraction);
    r += buf;
  }
  if (c.growth_length_exponent != 0.0) {
    std::snprintf(buf, sizeof buf, "growth_length_exponent: %.6g\n", c.growth_length_exponent);
    r += buf;
  }
  return r;
}

}  // namespace agentsim::exp
