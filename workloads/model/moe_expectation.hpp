#pragma once
// How many distinct routed experts a batch touches, in expectation, when each
// of `tokens` tokens picks `top_k` of `experts` uniformly: E * (1 - (1 - k/E)^T).
namespace agentsim::wl {

double expected_distinct_experts(int experts, int top_k, double tokens);

}  // namespace agentsim::wl
