#pragma once
// Expectations of uniform top-k routing: each of `tokens` tokens picks `top_k`
// distinct of `experts` experts uniformly at random.
//  - expected_distinct_experts: experts the batch touches, E * (1 - (1 - k/E)^T).
//  - expected_busiest_rank_experts / _assignments: with the experts split into
//    `ranks` equal expert-parallel groups, the touched experts and the routed
//    (token, expert) assignments of the busiest group, in expectation. Ranks are
//    treated as independent (per rank: Binomial(E/ranks, 1 - (1 - k/E)^T) touched
//    experts, Binomial(T k, 1/ranks) assignments); the maximum of `ranks` of them
//    is exact up to 4096 trials and the normal approximation above.
namespace agentsim::wl {

double expected_distinct_experts(int experts, int top_k, double tokens);
double expected_busiest_rank_experts(int experts, int top_k, double tokens, int ranks);
double expected_busiest_rank_assignments(int top_k, double tokens, int ranks);

// E[max of `count` independent Binomial(trials, p)] (normal approximation above 4096 trials).
double expected_max_binomial(double trials, double p, int count);

}  // namespace agentsim::wl
