#include "workloads/sessions/session_generator.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/rng.hpp"

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

long long range_ratio_length(long long tokens, double ratio, double u) {
  if (!(ratio < 1.0)) return tokens;
  const auto lower = static_cast<long long>(std::floor(static_cast<double>(tokens) * std::max(0.0, ratio)));
  const auto span = static_cast<double>(tokens - lower + 1);
  return std::max(1LL, lower + std::min(tokens - lower, static_cast<long long>(std::floor(u * span))));
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
  for (int i = 0; i < sessions; ++i) {
    Session s;
    s.id = "gen/" + std::to_string(i);
    s.root = i;
    const int turns = std::max(1, static_cast<int>(std::lround(draw(cfg.turns))));
    // benchmark_serving's random dataset: one uniform per length, only when a range is asked for.
    const auto ranged = [&](long long tokens) {
      return cfg.range_ratio < 1.0 ? range_ratio_length(tokens, cfg.range_ratio, rng.uniform()) : tokens;
    };
    long long context = cfg.shared_system_prompt_tokens +
                        ranged(std::max<long long>(1, std::llround(draw(cfg.initial_context_tokens))));
    long long prompt_blocks = 0;  // full blocks of the previous prompt
    for (int k = 0; k < turns; ++k) {
      Turn t;
      long long kept = prompt_blocks;  // blocks shared with the previous prompt
      if (k > 0) {
        if (cfg.compaction_probability > 0 && rng.uniform() < cfg.compaction_probability) {
          context = std::min(context, cfg.shared_system_prompt_tokens + cfg.compacted_context_tokens);
          kept = std::min(kept, sys_blocks);
        }
        context += std::max<long long>(1, std::llround(draw(cfg.growth_tokens)));
      }
      context = std::min(context, cfg.max_context_tokens);
      t.input_tokens = context;
      t.output_tokens = ranged(std::max<long long>(1, std::llround(draw(cfg.output_tokens))));
      if (k + 1 < turns) {
        const bool human = rng.uniform() < cfg.human_gap_fraction;
        t.gap_kind = human ? GapKind::kHuman : GapKind::kTool;
        t.stop = human ? StopReason::kEndTurn : StopReason::kToolUse;
        t.gap_after_s = draw(human ? cfg.human_gap_s : cfg.tool_gap_s);
      } else {
        t.stop = StopReason::kEndTurn;
      }
      t.prefix_break = k > 0 && 2 * context < s.turns.back().input_tokens;
      // Prefix links are known by construction: the previous turn of this session, or for a
      // first prompt the first session's first prompt (the shared system prompt).
      const long long want = context / bs;
      kept = std::min(kept, want);
      t.runs_begin = static_cast<std::uint32_t>(s.block_runs.size());
      if (k > 0 && kept > 0) {
        t.prefix_parent = TurnRef{i, k - 1};
        t.prefix_blocks = static_cast<std::int32_t>(kept);
      } else if (k == 0 && sys_blocks > 0) {
        kept = std::min(sys_blocks, want);
        if (i > 0) {
          t.prefix_parent = TurnRef{0, 0};
          t.prefix_blocks = static_cast<std::int32_t>(kept);
        } else {
          s.block_runs.push_back(BlockRun{0, static_cast<std::uint32_t>(kept)});
        }
      }
      if (want > kept) {
        s.block_runs.push_back(BlockRun{next_id, static_cast<std::uint32_t>(want - kept)});
        next_id += static_cast<std::uint64_t>(want - kept);
      }
      t.runs_end = static_cast<std::uint32_t>(s.block_runs.size());
      s.turns.push_back(t);
      prompt_blocks = want;
      context += t.output_tokens;  // the answer becomes part of the next prompt
    }
    trace.sessions.push_back(std::move(s));
  }
  return trace;
}

}  // namespace agentsim::wl
