#pragma once
// Synthetic agent sessions from parameterised distributions: turns per
// session, initial context, context growth per turn, output per turn, gaps
// (tool or human), compaction, a system prompt shared by all sessions and a
// repository prefix shared by the sessions on one repository, and truncation
// at a context limit (clip the prompt, or drop the oldest turns as a harness does).
#include <cstdint>

#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

// A log-normal given by its median and 90th percentile (p90 >= median > 0), its draws
// raised to `min` and cut to `max` where those are > 0.
struct LogNormalSpec {
  double median = 1;
  double p90 = 1;
  double min = 0;
  double max = 0;
};

// What happens to a prompt that would not fit the context limit with its answer.
enum class Truncation : std::uint8_t {
  kClip,        // the prompt is cut to the limit, its cached prefix kept
  kDropOldest,  // the oldest turns after the first prompt are dropped: the prompt keeps its first
                // prompt (system, repository, task) and the newest turns, and the prefix breaks there
};

struct GeneratorConfig {
  LogNormalSpec turns{20, 80};                  // turns per session (rounded, >= 1)
  LogNormalSpec initial_context_tokens{20000, 60000};
  LogNormalSpec growth_tokens{500, 3000};       // new prompt tokens per later turn (tool result)
  LogNormalSpec output_tokens{200, 1000};
  LogNormalSpec tool_gap_s{3, 15};
  LogNormalSpec human_gap_s{30, 300};
  double human_gap_fraction = 0.1;              // share of gaps that wait for a human
  double compaction_probability = 0.0;          // per turn: context restarts from a summary
  long long compacted_context_tokens = 20000;   // prompt size right after a compaction
  long long shared_system_prompt_tokens = 0;    // identical leading tokens of every session
  long long max_context_tokens = 200000;        // prompts (with their answer under kDropOldest) fit here
  int block_size_tokens = 64;
  // Below 1: each first prompt and each output of L tokens (its draw, rounded) becomes a
  // uniform integer in [floor(range_ratio x L), L], as benchmark_serving's random dataset
  // draws them (`--random-range-ratio`; InferenceX runs 0.8). 1 draws nothing more.
  double range_ratio = 1.0;
  // Output mixture: this share of turns draws `reasoning_output_tokens` (long reasoning turns),
  // the rest `output_tokens` (short tool-call turns). 0 = every turn draws `output_tokens`.
  double reasoning_fraction = 0.0;
  LogNormalSpec reasoning_output_tokens{1000, 3000};
  // Repositories: every generated agent session works on one of `repositories` (uniform), whose prefix of
  // `repository_tokens` (drawn once per repository) follows the system prompt. 0 = none.
  int repositories = 0;
  LogNormalSpec repository_tokens{10000, 30000};
  Truncation truncation = Truncation::kClip;
  double truncated_context_fraction = 0.5;      // kDropOldest: prompt after a drop, share of the limit
  // Growth per turn x (turns / turns.median)^exponent: < 0, long sessions grow slower per turn.
  double growth_length_exponent = 0.0;
};

// `sessions` sessions, deterministic in `seed`. Block ids are global: the shared system
// prompt's blocks are common to every session, a repository's to its sessions.
// Turns cut by the context limit are marked `truncated`.
Trace generate_sessions(const GeneratorConfig& cfg, int sessions, std::uint64_t seed);

// A uniform integer in [floor(ratio x tokens), tokens] from one uniform u in [0, 1); tokens
// itself when ratio >= 1 (never below 1).
long long range_ratio_length(long long tokens, double ratio, double u);

// Draw from a log-normal with the given median and p90 using two uniforms in (0, 1), then
// bounded by the spec's min and max.
double sample_lognormal(const LogNormalSpec& spec, double u1, double u2);

}  // namespace agentsim::wl
