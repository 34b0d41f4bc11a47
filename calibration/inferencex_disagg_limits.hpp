#pragma once
// The decode servers' limits of an InferenceX prefill/decode-disaggregated DeepSeek-R1 run, from
// its recipe. InferenceX's multi-node TensorRT-LLM runs (framework dynamo-trt) name their recipe
// per concurrency in .github/configs/nvidia-master.yaml (CONFIG_FILE=recipes/trtllm/<gpu>-<fp>/
// <isl><osl>/<stp|mtp>/ctx<P>_gen<D>_<tep|dep|tp><N>_batch<B>_..., srt-slurm's
// sa-submission-q1-2026 branch, vendored later under benchmarks/multi_node/srt-slurm-recipes/),
// whose decode section sets max_batch_size B: requests one decode worker runs at once (per
// attention-DP rank for dep). The config version read is the last main-branch commit on or before
// the row's run date. Dynamo's frontend routes with its default router, round-robin
// (docs.nvidia.com/dynamo Router Guide: --router-mode, default round-robin), so a request can wait
// at a full worker while another has a free slot.
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// Sets r.decode_max_sequences and, for an MTP recipe (`_mtp3`), r.draft_tokens 3 (where the row's
// recipe is read) and r.decode_round_robin (every
// Dynamo-fronted row, id "IXF-<gpu>-dynamo-...") for a disaggregated row mapped to system,
// precision, speculation, lengths, concurrency, decode replicas and run date.
void apply_inferencex_disagg_limits(MeasuredRun& r);

}  // namespace agentsim::calib
