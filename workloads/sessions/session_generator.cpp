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
  double x = std::exp(mu + sigma * z);
  if (spec.min > 0) x = std::max(x, spec.min);
  if (spec.max > 0) x = std::min(x, spec.max);
  return x;
}

namespace {
// Two uniforms in a fixed order (the angle's first), never as two arguments of one call: the
// order in which a compiler evaluates arguments is unspecified, and g++ and clang differ.
double draw_lognormal(const LogNormalSpec& spec, core::RngStream& rng) {
  const double u_angle = rng.uniform();
  const double u_radius = rng.uniform();
  return sample_lognormal(spec, u_radius, u_angle);
}
}  // namespace

long long range_ratio_length(long long tokens, double ratio, double u) {
  if (!(ratio < 1.0)) return tokens;
  const auto lower = static_cast<long long>(std::floor(static_cast<double>(tokens) * std::max(0.0, ratio)));
  const auto span = static_cast<double>(tokens - lower + 1);
  return std::max(1LL, lower + std::min(tokens - lower, static_cast<long long>(std::floor(u * span))));
}

Trace generate_sessions(const GeneratorConfig& cfg, int sessions, std::uint64_t seed) {
  core::RngStream rng(seed, "generator/sessions");
  auto draw = [&](const LogNormalSpec& s) { return draw_lognormal(s, rng); };
  const auto bs = static_cast<long long>(cfg.block_size_tokens);
  const long long sys_blocks = cfg.shared_system_prompt_tokens / bs;
  const bool drop_oldest = cfg.truncation == Truncation::kDropOldest;
  Trace trace;
  trace.name = "generated";
  trace.block_size_tokens = cfg.block_size_tokens;
  trace.global_block_ids = true;
  std::uint64_t next_id = static_cast<std::uint64_t>(sys_blocks);  // ids [0, sys_blocks) = system prompt
  // Repositories: prefix tokens, first block id and the earliest session using each
  // (drawn from their own stream, so sessions draw the same numbers with or without them).
  struct Repo {
    long long tokens = 0;
    std::uint64_t first_id = 0;
    int first_session = -1;
  };
  std::vector<Repo> repos(static_cast<std::size_t>(std::max(0, cfg.repositories)));
  {
    core::RngStream repo_rng(seed, "generator/repositories");
    for (auto& r : repos) {
      r.tokens = std::max<long long>(1, std::llround(draw_lognormal(cfg.repository_tokens, repo_rng)));
      const long long blocks = (cfg.shared_system_prompt_tokens + r.tokens) / bs - sys_blocks;
      r.first_id = next_id;
      next_id += static_cast<std::uint64_t>(std::max<long long>(0, blocks));
    }
  }
  // Every id from here on is one session's own: agents replaying the same session each have theirs.
  trace.replay_block_ids_from = next_id;
  // Output cap so a prompt of at least one block still fits with its answer.
  const long long output_cap = drop_oldest ? std::max<long long>(1, cfg.max_context_tokens / 2) : 0;
  for (int i = 0; i < sessions; ++i) {
    Session s;
    s.id = "gen/" + std::to_string(i);
    s.root = i;
    const double turns_drawn = draw(cfg.turns);
    const int turns = std::max(1, static_cast<int>(std::lround(turns_drawn)));
    const double growth_scale =
        cfg.growth_length_exponent != 0.0 ? std::pow(static_cast<double>(turns) / cfg.turns.median, cfg.growth_length_exponent)
                                          : 1.0;
    // benchmark_serving's random dataset: one uniform per length, only when a range is asked for.
    const auto ranged = [&](long long tokens) {
      return cfg.range_ratio < 1.0 ? range_ratio_length(tokens, cfg.range_ratio, rng.uniform()) : tokens;
    };
    Repo* repo = nullptr;
    if (!repos.empty()) {
      const auto r = std::min(repos.size() - 1, static_cast<std::size_t>(rng.uniform() * static_cast<double>(repos.size())));
      repo = &repos[r];
    }
    const long long repo_tokens = repo != nullptr ? repo->tokens : 0;
    // Blocks every session on this repository shares: system prompt, then the repository.
    const long long shared_blocks = (cfg.shared_system_prompt_tokens + repo_tokens) / bs;
    long long context = cfg.shared_system_prompt_tokens + repo_tokens +
                        ranged(std::max<long long>(1, std::llround(draw(cfg.initial_context_tokens))));
    if (drop_oldest) context = std::min(context, cfg.max_context_tokens - output_cap);
    long long prompt_blocks = 0;  // full blocks of the previous prompt
    long long head_tokens = 0;    // the first prompt, which a dropping harness keeps
    long long head_blocks = 0;    // leading blocks of the previous prompt equal to the first prompt's
    for (int k = 0; k < turns; ++k) {
      Turn t;
      long long kept = prompt_blocks;  // blocks shared with the previous prompt
      if (k > 0) {
        if (cfg.compaction_probability > 0 && rng.uniform() < cfg.compaction_probability) {
          context = std::min(context, cfg.shared_system_prompt_tokens + cfg.compacted_context_tokens);
          kept = std::min(kept, sys_blocks);
          head_blocks = std::min(head_blocks, sys_blocks);
        }
        context += std::max<long long>(1, std::llround(draw(cfg.growth_tokens) * growth_scale));
      }
      if (!drop_oldest) context = std::min(context, cfg.max_context_tokens);
      t.output_tokens = ranged(std::max<long long>(1, std::llround(draw(cfg.reasoning_fraction > 0 &&
                                                                                  rng.uniform() < cfg.reasoning_fraction
                                                                              ? cfg.reasoning_output_tokens
                                                                              : cfg.output_tokens))));
      if (drop_oldest) {
        t.output_tokens = std::min(t.output_tokens, output_cap);
        if (k > 0 && context + t.output_tokens > cfg.max_context_tokens) {
          // The harness drops the oldest turns after the first prompt until the prompt is
          // the target share of the limit: the cached prefix ends with the first prompt.
          const auto target = static_cast<long long>(cfg.truncated_context_fraction * static_cast<double>(cfg.max_context_tokens));
          const long long keep_head = std::min(head_tokens, target / 2);
          context = std::min(std::max(target, keep_head + 1), cfg.max_context_tokens - t.output_tokens);
          kept = std::min({kept, head_blocks, keep_head / bs});
          head_blocks = std::min(head_blocks, keep_head / bs);
          t.truncated = true;
        }
      }
      t.input_tokens = context;
      if (k + 1 < turns) {
        const bool human = rng.uniform() < cfg.human_gap_fraction;
        t.gap_kind = human ? GapKind::kHuman : GapKind::kTool;
        t.stop = human ? StopReason::kEndTurn : StopReason::kToolUse;
        t.gap_after_s = draw(human ? cfg.human_gap_s : cfg.tool_gap_s);
      } else {
        t.stop = StopReason::kEndTurn;
      }
      t.prefix_break = k > 0 && (t.truncated || 2 * context < s.turns.back().input_tokens);
      // Prefix links are known by construction: the session's previous turn, or for a
      // first prompt the shared prefix of an earlier session (system prompt, repository).
      const long long want = context / bs;
      kept = std::min(kept, want);
      t.runs_begin = static_cast<std::uint32_t>(s.block_runs.size());
      if (k > 0 && kept > 0) {
        t.prefix_parent = TurnRef{i, k - 1};
        t.prefix_blocks = static_cast<std::int32_t>(kept);
      } else if (k == 0 && repo != nullptr && repo->first_session >= 0 && shared_blocks > 0) {
        kept = std::min(shared_blocks, want);
        t.prefix_parent = TurnRef{repo->first_session, 0};
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
      if (k == 0 && repo != nullptr && repo->first_session < 0) {
        // The repository's first agent session brings its blocks; later ones link to that first prompt.
        const long long repo_blocks = std::min(shared_blocks, want) - kept;
        if (repo_blocks > 0) {
          s.block_runs.push_back(BlockRun{repo->first_id, static_cast<std::uint32_t>(repo_blocks)});
          kept += repo_blocks;
        }
        repo->first_session = i;
      }
      if (want > kept) {
        s.block_runs.push_back(BlockRun{next_id, static_cast<std::uint32_t>(want - kept)});
        next_id += static_cast<std::uint64_t>(want - kept);
      }
      t.runs_end = static_cast<std::uint32_t>(s.block_runs.size());
      if (k == 0) {
        head_tokens = context;
        head_blocks = want;
      }
      s.turns.push_back(t);
      prompt_blocks = want;
      context += t.output_tokens;  // the answer becomes part of the next prompt
    }
    trace.sessions.push_back(std::move(s));
  }
  return trace;
}

}  // namespace agentsim::wl
