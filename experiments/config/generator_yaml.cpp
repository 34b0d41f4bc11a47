#include "experiments/config/generator_yaml.hpp"

#include <array>
#include <cstdio>

namespace agentsim::exp {
using core::OptionSpec;
using core::YamlNode;
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
};
constexpr std::array kDistKeys = {
    OptionSpec{"median", "number", "", "50th percentile"},
    OptionSpec{"p90", "number", "", "90th percentile (>= median)"},
};

wl::LogNormalSpec dist(const YamlNode& parent, std::string_view key, wl::LogNormalSpec fallback) {
  auto n = parent.find(key);
  if (!n) return fallback;
  n->check_keys(kDistKeys);
  wl::LogNormalSpec s{n->at("median").as_number(), n->at("p90").as_number()};
  if (!(s.median > 0)) throw n->at("median").error("expected a positive number");
  if (!(s.p90 >= s.median)) throw n->at("p90").error("expected a number >= median");
  return s;
}

double probability(const YamlNode& parent, std::string_view key, double fallback) {
  if (!parent.has(key)) return fallback;
  const double v = parent.at(key).as_number();
  if (!(v >= 0 && v <= 1)) throw parent.at(key).error("expected a number in [0, 1]");
  return v;
}

long long count(const YamlNode& parent, std::string_view key, long long fallback, long long lo) {
  if (!parent.has(key)) return fallback;
  const long long v = parent.at(key).as_integer();
  if (v < lo) throw parent.at(key).error("expected an integer >= " + std::to_string(lo));
  return v;
}

std::string line(const char* key, const wl::LogNormalSpec& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: {median: %.6g, p90: %.6g}\n", key, s.median, s.p90);
  return buf;
}

}  // namespace

wl::GeneratorConfig decode_generator(const YamlNode& node) {
  node.check_keys(kKeys);
  wl::GeneratorConfig c;
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
  c.block_size_tokens = static_cast<int>(count(node, "block_size_tokens", c.block_size_tokens, 1));
  if (node.has("range_ratio")) {
    c.range_ratio = node.at("range_ratio").as_number();
    if (!(c.range_ratio > 0 && c.range_ratio <= 1)) throw node.at("range_ratio").error("expected a number in (0, 1]");
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
  if (c.range_ratio < 1.0) {
    char rr[64];
    std::snprintf(rr, sizeof rr, "range_ratio: %.6g\n", c.range_ratio);
    return r + buf + rr;
  }
  return r + buf;
}

}  // namespace agentsim::exp
