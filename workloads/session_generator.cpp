#include "workloads/session_generator.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/rng.hpp"
#include "workloads/prefix_tree_builder.hpp"

namespace agentsim::wl {
namespace {
constexpr double kZ90 = 1.2815515655446004;  // standard normal 90th percentile
constexpr double kTwoPi = 6.283185307179586;
}  // namespace

double sample_lognormal(const LogNormalSpec& spec, double u1, double u2) {
  const double mu = std::log(spec.median);
  const double sigma = std::max(0.0, std::log(spec.p90 / spec.median) / kZ90);
  // Box-Muller: exact normal from two uniforms, portable across standard libraries.
  const double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(kTwoPi * u2);
  return std::exp(mu + sigma * z);
}

Trace generate_sessions(const GeneratorConfig& cfg, int sessions, std::uint64_t seed) {
  core::RngStream rng(seed, "generator/sessions");
  auto draw = [&](const LogNormalSpec& s) { return sample_lognormal(s, rng.uniform(), rng.uniform()); };
  const auto bs = static_cast<long long>(cfg.block_size_tokens);
  const long long sys_blocks = cfg.shared_system_prompt_tokens / bs;
  Trace trace;
  trace.name = "generated";
  trace.block_size_tokens = cfg.block_size_tokens;
  trace.global_block_ids = true;
  std::uint64_t next_id = static_cast<std::uint64_t>(sys_blocks);  // ids [0, sys_blocks) = system prompt
  std::vector<std::uint64_t> ids;
  PrefixTreeBuilder tree;
  for (int i = 0; i < sessions; ++i) {
    Session s;
    s.id = "gen/" + std::to_string(i);
    s.root = i;
    const int turns = std::max(1, static_cast<int>(std::lround(draw(cfg.turns))));
    long long context = cfg.shared_system_prompt_tokens + std::max<long long>(1, std::llround(draw(cfg.initial_context_tokens)));
    std::vector<std::uint64_t> prompt;  // block ids of the current context
    for (int k = 0; k < turns; ++k) {
      Turn t;
      if (k > 0) {
        if (cfg.compaction_probability > 0 && rng.uniform() < cfg.compaction_probability) {
          context = std::min(context, cfg.shared_system_prompt_tokens + cfg.compacted_context_tokens);
          prompt.resize(static_cast<std::size_t>(sys_blocks));
        }
        context += std::max<long long>(1, std::llround(draw(cfg.growth_tokens)));
      }
      context = std::min(context, cfg.max_context_tokens);
      t.input_tokens = context;
      t.output_tokens = std::max<long long>(1, std::llround(draw(cfg.output_tokens)));
      if (k + 1 < turns) {
        const bool human = rng.uniform() < cfg.human_gap_fraction;
        t.gap_kind = human ? GapKind::kHuman : GapKind::kTool;
        t.stop = human ? StopReason::kEndTurn : StopReason::kToolUse;
        t.gap_after_s = draw(human ? cfg.human_gap_s : cfg.tool_gap_s);
      } else {
        t.stop = StopReason::kEndTurn;
      }
      t.prefix_break = k > 0 && 2 * context < s.turns.back().input_tokens;
      // Full blocks of the context; the previous answer becomes part of this prompt.
      const auto want = static_cast<std::size_t>(std::max<long long>(context / bs, 0));
      while (prompt.size() < std::min<std::size_t>(want, static_cast<std::size_t>(sys_blocks))) {
        prompt.push_back(prompt.size());
      }
      if (prompt.size() > want) prompt.resize(want);
      while (prompt.size() < want) prompt.push_back(next_id++);
      s.turns.push_back(t);
      ids = prompt;
      tree.add(0, TurnRef{i, k}, ids, s);
      context += t.output_tokens;
    }
    trace.sessions.push_back(std::move(s));
  }
  return trace;
}

}  // namespace agentsim::wl
