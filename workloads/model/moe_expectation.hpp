#pragma once
// Expectations of uniform top-k routing: each of `tokens` tokens picks `top_k`
// distinct of `experts` experts uniformly at random.
//  - expected_distinct_experts: experts the batch touches, E * (1 - (1 - k/E)^T).
//  - expected_busiest_rank_experts / _assignments: with the experts (and `redundant`
//    copies of them) split into `ranks` expert-parallel groups of ceil((E + R)/ranks)
//    slots, the touched slots and the routed (token, expert) assignments of the busiest
//    group, in expectation. Ranks are treated as independent: touched slots per rank
//    Binomial(ceil((E + R)/ranks), 1 - (1 - k/E)^(T E/(E + R))) (a slot sees its expert's
//    tokens over the mean number of copies, E/(E + R) of them; R = 0: 1 - (1 - k/E)^T)
//    (within 1% of a Monte Carlo of the routing); assignments per rank Poisson(T k / ranks),
//    the balls-into-bins Poissonisation (within 1%; independent Binomial(T k, 1/ranks)
//    loads ignore that the ranks share a fixed total and fall 5% short at one token).
namespace agentsim::wl {

double expected_distinct_experts(int experts, int top_k, double tokens);
double expected_busiest_rank_experts(int experts, int top_k, double tokens, int ranks, int redundant = 0);
double expected_busiest_rank_assignments(int top_k, double tokens, int ranks);

// The busiest of `ranks` expert-parallel ranks' routed load over the mean rank's, from the
// experts' own popularity (hot experts: the skew uniform routing lacks), >= 1. Without redundant
// experts each rank holds experts / ranks of them, whose loads (per-expert coefficient of
// variation `load_cv`, log-normal) sum to a rank's: Fenton-Wilkinson's log-normal of the sum,
// sigma^2 = ln(1 + load_cv^2 / (experts / ranks)), and its expected maximum over the ranks,
// exp(sigma z - sigma^2 / 2), z = E[max of `ranks` standard normals]. With redundant experts the
// engine's load balancer places copies of the hot ones, leaving a rank load coefficient of
// variation `balanced_cv`: 1 + z balanced_cv. 1 when load_cv is 0 or ranks <= 1.
double expected_busiest_rank_skew(int experts, int ranks, int redundant, double load_cv, double balanced_cv);

// E[max of `count` independent Binomial(trials, p)], exact.
double expected_max_binomial(double trials, double p, int count);
// E[max of `count` independent Poisson(mean)]: exact up to a mean of 1024, the normal
// approximation (mean + E[max of count standard normals] x sqrt(mean)) above.
double expected_max_poisson(double mean, int count);

}  // namespace agentsim::wl
