#pragma once
// search: auto simulates only the promising plans: per system, the valid plans are ranked by an
// analytic bound (decode-only throughput of the whole system at the experiment's slowest speed
// read-off) and all but the best few are pruned, with the bound in the reason.
#include <string>

#include "experiments/config/experiment.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

// Plans search: auto simulates per system: the two best bounds, a third within 80% of the best, and
// the plan with the best single-agent bound (for the single-agent read-off) when it is none of those.
inline constexpr int kAutoSearchKeep = 3;
inline constexpr double kAutoSearchThirdWithin = 0.8;

struct PlanBound {
  double system_tok_s = 0;  // output tokens/s of every replica of one system (0: speed unreachable)
  long long batch = 0;      // decoding sequences per replica at that bound
  double step_s = 0;        // decode step time at that batch
  double single_agent_tok_s = 0;  // one sequence's decode speed alone (0: no sequence fits)
};

// Largest decode batch per replica whose step still gives each sequence `agent_tok_s` (the tokens a
// step emits per sequence, more than one with a speculative drafter, over the step time) and whose KV
// (`context_tokens` each) fits the replica's HBM cache; its tokens/s times the replicas one system holds.
PlanBound plan_bound(const Experiment& e, const Plan& plan, double context_tokens, double agent_tok_s,
                     long long trace_block_tokens);

// With e.search_auto: prunes every valid plan of a system but its two best bounds, a third within
// kAutoSearchThirdWithin of the best, and the one with the best single-agent bound.
void rank_plans(Experiment& e, const wl::Trace& sessions);

}  // namespace agentsim::exp
