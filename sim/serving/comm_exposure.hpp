#pragma once
// How much of a step's communication stays exposed under an overlap mode: the formulas the
// step-cost engine (step_coster.cpp) applies.
#include <algorithm>

#include "sim/serving/step_cost.hpp"

namespace agentsim::serving {

struct CommExposure {
  double alpha_s = 0, beta_s = 0;  // exposed latency and transfer time of one micro-batch
};

// No overlap, or collectives overlapping the ops (`roof_s`: op time the communication can hide
// behind; `alpha_s`/`beta_s`: latency and transfer time of the collectives). Two-batch overlap
// is two_batch_exposure's.
inline CommExposure comm_exposure(Overlap overlap, double roof_s, double alpha_s, double beta_s) {
  CommExposure e{alpha_s, beta_s};
  if (overlap == Overlap::kCommCompute) e.beta_s = std::max(0.0, beta_s - roof_s);
  return e;
}

// One micro-batch of a two-batch-overlapped step, over its MoE layers: the op time of each
// stage that can cover the other micro-batch's expert all-to-alls, and its own all-to-alls.
struct TwoBatchSide {
  double prep_s = 0;     // attention projections (attn_proj, all of it: SGLang's core stage holds o_proj)
  double core_s = 0;     // attention core, sparse indexer, router
  double shared_s = 0;   // shared experts
  double experts_s = 0;  // routed experts (and LatentMoE projections)
  double dispatch_s = 0, combine_s = 0;  // its expert all-to-alls, latency + transfer
  double moe_layers = 0;
};

// Two-batch overlap as SGLang schedules a MoE layer (python/sglang/srt/batch_overlap/
// operations_strategy.py, _compute_moe_deepseek_blog_decode / _prefill): the two micro-batches'
// stages alternate on one stream, and only the expert all-to-alls are split into a send and a
// receive, in flight meanwhile; every other collective runs in the stream, exposed.
//  - decode (tbo_delta_stages 2): a dispatch flies over its own shared experts and the other
//    micro-batch's attention projections; a combine over the other's attention core and router;
//    the routed experts cover nothing (receive, experts, send run back to back).
//  - prefill (delta 0): a dispatch flies over the other's shared experts, attention and router;
//    a combine over the other's routed experts and its own shared experts.
// The last MoE layer's second combine has nothing to fly over. `alpha_s`/`beta_s`: all the step's
// collectives (both micro-batches), split into exposed latency and transfer pro rata.
inline CommExposure two_batch_exposure(bool decode, const TwoBatchSide& a, const TwoBatchSide& b, double alpha_s,
                                       double beta_s) {
  auto side = [decode](const TwoBatchSide& own, const TwoBatchSide& other) {
    const double dispatch_cover = decode ? own.shared_s + other.prep_s : other.shared_s + other.prep_s + other.core_s;
    const double combine_cover = decode ? other.core_s : other.experts_s + own.shared_s;
    return std::max(0.0, own.dispatch_s - dispatch_cover) + std::max(0.0, own.combine_s - combine_cover);
  };
  const double a2a = a.dispatch_s + a.combine_s + b.dispatch_s + b.combine_s;
  const double last = b.moe_layers > 0 ? std::min(b.combine_s, decode ? a.core_s : a.experts_s) / b.moe_layers : 0.0;
  const double exposed_a2a = std::min(a2a, side(a, b) + side(b, a) + last);
  const double comm = alpha_s + beta_s;
  const double exposed = comm - a2a + exposed_a2a;  // the in-stream collectives, whole
  const double share = comm > 0 ? std::clamp(exposed / comm, 0.0, 1.0) : 0.0;
  return CommExposure{alpha_s * share, beta_s * share};
}

}  // namespace agentsim::serving
