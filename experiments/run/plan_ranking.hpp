#pragma once
// search: auto simulates only the promising plans: per system, the valid plans (aggregated, and
// the prefill/decode splits disagg_plans adds) are ranked by an analytic bound that prices decode
// at the workload's context distribution and KV capacity, the prefill each output token needs
// (its computed input, cached input attended to) and, split, the KV transfer; the sweep
// simulates the top of the ranking (sweep_outcome.cpp goes on down it) and logs how the bound's
// ranks agree with the simulated ones (Spearman).
#include <string>
#include <vector>

#include "experiments/config/experiment.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

// Plans search: auto simulates at first per system: the best kAutoSearchKeep bounds, the best
// split (when one is ranked), the best aggregated plan and the plan with the best single-agent
// bound; between equal bounds the larger prefill pool ranks first; then, while the best
// simulated plan is the lowest-ranked of those simulated by rank, the next one down the ranking,
// at most kAutoSearchDeeper more.
inline constexpr int kAutoSearchKeep = 2;
inline constexpr int kAutoSearchDeeper = 3;

// Plan::bound_power_w of `plan`; and the ranking's key, bound_tok_s per watt (0 without a bound).
double bound_power_w(const Experiment& e, const Plan& plan);
double bound_per_w(const Plan& plan);

// What the bound needs of the workload, per output token and over its decode contexts.
struct WorkloadProfile {
  double computed_input_per_output = 0;  // prompt tokens computed (not found cached) per output token
  double cached_input_per_output = 0;    // prompt tokens found in the prefix cache per output token
  double mean_cached_tokens = 0;         // cached prefix of a prompt, mean over turns
  // Context (prompt + half the answer) of a decoding sequence at evenly spaced quantiles of the
  // output-token-weighted distribution (a long answer decodes for more steps); and its mean.
  std::vector<double> decode_context_quantiles;
  double mean_decode_context = 0;
  // An agent's cycle: answer tokens per turn and the gap after it (capped as the workload caps
  // it); and the context a session keeps in the prefix cache between turns (prompt + answer).
  double mean_output_per_turn = 0;
  double mean_gap_s = 0;
  double mean_session_context = 0;
};
// Over every turn of `sessions`: a turn's cached prefix is its recorded prefix blocks, else (no
// block data) the previous turn's prompt and answer unless the prompt broke the prefix. Gaps are
// cut to `human_gap_cap_s` / `tool_gap_cap_s` (< 0: as recorded).
WorkloadProfile workload_profile(const wl::Trace& sessions, double human_gap_cap_s = -1, double tool_gap_cap_s = -1);

struct PlanBound {
  double system_tok_s = 0;  // output tokens/s of every replica of one system (0: speed unreachable)
  long long batch = 0;      // decoding sequences per replica at that bound
  double step_s = 0;        // decode step time at that batch
  double single_agent_tok_s = 0;  // one sequence's decode speed alone (0: no sequence fits)
};

// Decode only, at one context: the largest decode batch per replica whose step still gives each
// sequence `agent_tok_s` (the tokens a step emits per sequence, more than one with a speculative
// drafter, over the step time) and whose KV (`context_tokens` each) fits the replica's HBM cache;
// its tokens/s times the replicas one system holds.
PlanBound plan_bound(const Experiment& e, const Plan& plan, double context_tokens, double agent_tok_s,
                     long long trace_block_tokens);

// One replica of a deployment, priced for the bound.
struct ReplicaBound {
  long long kv_capacity_tokens = 0;  // HBM KV cache: decoding sequences and the sessions' prefixes
  double decode_tok_s = 0;      // output tok/s decoding alone at the speed (0: unreachable)
  long long decode_batch = 0;
  double prefill_tok_s = 0;     // prompt tokens/s computed by prefill-only steps
  double single_agent_tok_s = 0;
  double aggregated_tok_s = 0;  // output tok/s prefilling its own prompts as well, at the speed
  std::vector<double> aggregated_by_miss;  // the same when a share 0, 1/16, ..., 1 of cached prefixes is missed
  int devices = 0;
  int rank_devices = 0;         // devices holding one sequence's KV (tp x pp)
};
ReplicaBound replica_bound(const Experiment& e, const DeploymentConfig& d, int system, const WorkloadProfile& w,
                           double agent_tok_s, long long trace_block_tokens);

// Output tok/s per system of `plan` (a replica over n systems: its output over n; aggregated: replicas x aggregated_tok_s; split: the
// least of the decode pool, the prefill pool over the computed input per output token, and the
// KV each output token brings over the per-GPU route between the pools). The prefix cache holds
// only what the prefilling replicas' HBM holds: at throughput T the agents it takes (T over one
// agent's output rate at the speed, its gaps included) keep their sessions' contexts; the share
// that does not fit is computed again (a fixed point over T).
double system_bound(const Experiment& e, const Plan& plan, const ReplicaBound& decode, const ReplicaBound* prefill,
                    const WorkloadProfile& w, double per_gpu_link_Bps);

// With e.search_auto: adds the splits (disagg_plans.hpp), ranks every valid plan of each system
// (Plan::bound_tok_s, bound_rank) and holds back all but the first ones simulated.
void rank_plans(Experiment& e, const wl::Trace& sessions);

// Ranks the valid plans of `system` by Plan::bound_tok_s (bound_rank) and holds back all but the
// best kAutoSearchKeep and `also_simulated` (pruned, with the bound in the reason).
void rank_by_bound(Experiment& e, int system, const std::vector<std::size_t>& also_simulated,
                   double computed_input_per_output);

// The slowest read-off speed, else the slowest SLO tier's speed (what the bound holds every agent to).
double bound_speed_tok_s(const Experiment& e);

}  // namespace agentsim::exp
