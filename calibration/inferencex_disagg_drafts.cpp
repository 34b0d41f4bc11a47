#include "calibration/inferencex_disagg_drafts.hpp"

#include <array>
#include <string>
#include <string_view>

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

namespace {

// One speculative disaggregated row's recipe: where it ran (system; framework, as the row's id
// names it: "-mori-" or "-dynamo-sglang-"), its topology, concurrency and run date, and what its
// decode servers ran: drafts a step and whether SGLang's overlap scheduler was on.
struct RecipeDrafts {
  std::string_view system, framework;
  bool fp4;
  long long isl, osl;
  int prefill_workers, prefill_gpus, prefill_ep, decode_workers, decode_gpus, decode_ep, concurrency;
  std::string_view run_date;
  int drafts;
  bool overlap;
};

constexpr std::array kDraftRecipes = {
    // Every MTP row of serving-points-2's MI355X MoRI runs: drafts DECODE_MTP_SIZE; the overlap
    // scheduler from 2026-05-07 (SGLANG_ENABLE_SPEC_V2). The comment names the amd-master.yaml
    // config and the commit read.
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 1, 1, 8, 1, 1, "2026-05-27", 3, true},  // dsr1-fp4-mi355x-sglang-disagg-mtp @bb0005581
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 1, 1, 8, 1, 8, "2026-05-27", 3, true},  // dsr1-fp4-mi355x-sglang-disagg-mtp @bb0005581
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 1, 2, 8, 1, 8, "2026-03-13", 3, false},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 1, 2, 8, 1, 16, "2026-03-03", 3, false},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4706e7009
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 1, 2, 8, 1, 32, "2026-03-13", 3, false},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 4, 1, 2, 8, 1, 64, "2026-05-27", 2, true},  // dsr1-fp4-mi355x-sglang-disagg-mtp @bb0005581
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 1, 2, 8, 1, 64, "2026-03-13", 1, false},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-11", 1, false},  // dsr1-fp4-mi355x-sglang-disagg @2376a7182
    RecipeDrafts{"mi355x-8", "mori", true, 1024, 8192, 1, 8, 8, 2, 8, 8, 32, "2026-02-04", 2, false},  // dsr1-fp4-mi355x-sglang-disagg @6f6afc1cb
    RecipeDrafts{"mi355x-8", "mori", true, 8192, 1024, 1, 8, 1, 1, 8, 1, 1, "2026-05-31", 3, true},  // dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp @2dca60196
    RecipeDrafts{"mi355x-8", "mori", true, 8192, 1024, 1, 8, 1, 1, 8, 1, 8, "2026-03-13", 3, false},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    RecipeDrafts{"mi355x-8", "mori", true, 8192, 1024, 1, 8, 1, 2, 8, 1, 16, "2026-05-31", 3, true},  // dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp @2dca60196
    RecipeDrafts{"mi355x-8", "mori", true, 8192, 1024, 1, 8, 1, 2, 8, 1, 64, "2026-05-31", 3, true},  // dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp @2dca60196
    RecipeDrafts{"mi355x-8", "mori", true, 8192, 1024, 1, 4, 1, 2, 8, 1, 64, "2026-03-13", 1, false},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    RecipeDrafts{"mi355x-8", "mori", true, 8192, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-11", 1, false},  // dsr1-fp4-mi355x-sglang-disagg @2376a7182
    RecipeDrafts{"mi355x-8", "mori", false, 1024, 1024, 1, 8, 1, 2, 8, 1, 4, "2026-02-16", 2, false},  // dsr1-fp8-mi355x-sglang-disagg @6e97ccc73
    RecipeDrafts{"mi355x-8", "mori", false, 1024, 1024, 1, 4, 1, 1, 8, 1, 8, "2026-03-03", 2, false},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    RecipeDrafts{"mi355x-8", "mori", false, 1024, 1024, 1, 4, 1, 1, 8, 1, 32, "2026-03-03", 2, false},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    RecipeDrafts{"mi355x-8", "mori", false, 1024, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-06", 2, false},  // dsr1-fp8-mi355x-sglang-disagg @6f6afc1cb
    RecipeDrafts{"mi355x-8", "mori", false, 1024, 8192, 1, 8, 8, 2, 8, 8, 32, "2026-02-06", 2, false},  // dsr1-fp8-mi355x-sglang-disagg @6f6afc1cb
    RecipeDrafts{"mi355x-8", "mori", false, 8192, 1024, 1, 8, 1, 2, 8, 1, 4, "2026-02-16", 2, false},  // dsr1-fp8-mi355x-sglang-disagg @6e97ccc73
    RecipeDrafts{"mi355x-8", "mori", false, 8192, 1024, 1, 8, 1, 2, 8, 1, 8, "2026-03-03", 2, false},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    RecipeDrafts{"mi355x-8", "mori", false, 8192, 1024, 1, 4, 1, 1, 8, 1, 16, "2026-03-03", 2, false},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    RecipeDrafts{"mi355x-8", "mori", false, 8192, 1024, 1, 8, 8, 2, 8, 8, 4, "2026-02-11", 1, false},  // dsr1-fp8-mi355x-sglang-disagg @2376a7182
    RecipeDrafts{"mi355x-8", "mori", false, 8192, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-06", 2, false},  // dsr1-fp8-mi355x-sglang-disagg @6f6afc1cb
    // Every MTP row of serving-points-2's Dynamo + SGLang runs (framework dynamo-sglang): the recipe is
    // the CONFIG_FILE of the nvidia-master.yaml search-space entry (the last commit on or before the run
    // date) listing the row's precision, lengths, workers, degrees and concurrency; its decode section
    // runs EAGLE with topk 1 and speculative-num-steps N (N drafts a step), and with SGLang's overlap
    // scheduler where its decode_environment sets SGLANG_ENABLE_SPEC_V2. Recipes under recipes/ are
    // github.com/NVIDIA/srt-slurm's at the commit named (the B200 ones were written on its
    // sa-submission-q1-2026 branch, squash-merged in 5063eb43 on 2026-03-03: that merge is their first
    // public version); recipes/sglang/dsr1/... are InferenceX's vendored copies
    // (benchmarks/multi_node/srt-slurm-recipes/) at the config's commit. Every decode
    // max-running-requests they set is at least the requests a worker receives, so it never binds.
    // sglang/dsr1/b200-fp4/1k1k/disagg/mtp/1k1k_mtp_lowlat_0.yaml @263aace86
    RecipeDrafts{"hgx-b200", "dynamo-sglang", true, 1024, 1024, 1, 4, 4, 5, 8, 8, 16, "2026-06-11", 2, true},
    // sglang/dsr1/b200-fp4/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml, _2.yaml @263aace86
    RecipeDrafts{"hgx-b200", "dynamo-sglang", true, 8192, 1024, 1, 4, 1, 5, 8, 1, 4, "2026-06-11", 3, true},
    RecipeDrafts{"hgx-b200", "dynamo-sglang", true, 8192, 1024, 1, 4, 1, 5, 8, 1, 8, "2026-06-11", 3, true},
    RecipeDrafts{"hgx-b200", "dynamo-sglang", true, 8192, 1024, 1, 4, 1, 1, 8, 1, 64, "2026-06-11", 3, true},
    // recipes/b200-fp4/8k1k/mtp/low-latency-tp4-1p-tp8-1d.yaml @5063eb43 (config @2376a7182)
    RecipeDrafts{"hgx-b200", "dynamo-sglang", true, 8192, 1024, 1, 4, 1, 1, 8, 1, 8, "2026-02-11", 2, true},
    // recipes/b200-fp8/{1k1k,8k1k}/mtp/low-latency-tep8-1p1d.yaml, 8k1k/.../low-latency-tep8-1p6d.yaml
    // @5063eb43 (configs @8fe499ff4, @ee032b37f)
    RecipeDrafts{"hgx-b200", "dynamo-sglang", false, 1024, 1024, 1, 8, 8, 1, 8, 8, 4, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-b200", "dynamo-sglang", false, 1024, 1024, 1, 8, 8, 1, 8, 8, 64, "2026-02-10", 2, true},
    RecipeDrafts{"hgx-b200", "dynamo-sglang", false, 8192, 1024, 1, 8, 8, 6, 8, 8, 4, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-b200", "dynamo-sglang", false, 8192, 1024, 1, 8, 8, 1, 8, 8, 64, "2026-02-13", 2, true},
    // recipes/h100/<isl><osl>/mtp/h100-fp8-1p2d-max-tp-mtp.yaml, -1p1d-max-dep-mtp.yaml,
    // 8k1k/mtp/h100-fp8-1p1d-max-tp-mtp.yaml @616191ca (config @ee032b37f); the 1k1k DEP recipe
    // alone leaves SGLANG_ENABLE_SPEC_V2 unset
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 1024, 1, 16, 1, 2, 16, 1, 8, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 1024, 1, 16, 1, 2, 16, 1, 32, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 1024, 1, 16, 1, 1, 16, 16, 1, "2026-02-13", 2, false},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 1024, 1, 16, 1, 1, 16, 16, 4, "2026-02-13", 2, false},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 8192, 1, 16, 1, 2, 16, 1, 2, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 8192, 1, 16, 1, 2, 16, 1, 8, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 8192, 1, 16, 1, 2, 16, 1, 64, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 8192, 1, 16, 1, 1, 16, 16, 1, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 1024, 8192, 1, 16, 1, 1, 16, 16, 32, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 8192, 1024, 1, 16, 1, 1, 16, 1, 8, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 8192, 1024, 1, 16, 1, 1, 16, 1, 32, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 8192, 1024, 1, 16, 1, 1, 16, 16, 1, "2026-02-13", 2, true},
    RecipeDrafts{"hgx-h100", "dynamo-sglang", false, 8192, 1024, 1, 16, 1, 1, 16, 16, 4, "2026-02-13", 2, true},
    // recipes/h200/1k1k/low-latency-1p9d-mtp.yaml, 8k1k/bs4-1p7d-mtp.yaml, bs8-1p6d-mtp.yaml,
    // bs16-1p3d-mtp.yaml @35d6fb1d (config @04b564b39)
    RecipeDrafts{"hgx-h200", "dynamo-sglang", false, 1024, 1024, 1, 8, 1, 9, 8, 1, 16, "2026-02-07", 2, true},
    RecipeDrafts{"hgx-h200", "dynamo-sglang", false, 8192, 1024, 1, 8, 1, 7, 8, 1, 1, "2026-02-07", 2, true},
    RecipeDrafts{"hgx-h200", "dynamo-sglang", false, 8192, 1024, 1, 8, 1, 6, 8, 1, 8, "2026-02-07", 2, true},
    RecipeDrafts{"hgx-h200", "dynamo-sglang", false, 8192, 1024, 1, 8, 1, 3, 8, 1, 64, "2026-02-07", 2, true},
};

}  // namespace

void apply_inferencex_disagg_drafts(MeasuredRun& r) {
  if (r.prefill_replicas <= 0 || !r.speculative || r.model != "deepseek-r1" || r.engine != "sglang") return;
  const bool fp4 = is_fp4_format(r.experts_dtype);
  const PlanDegrees p = plan_degrees(r.prefill_plan.empty() ? r.plan : r.prefill_plan), d = plan_degrees(r.plan);
  for (const RecipeDrafts& e : kDraftRecipes) {
    if (e.system == r.system && id_names_framework(r.id, e.framework) &&
        e.fp4 == fp4 && e.isl == r.isl && e.osl == r.osl && e.prefill_workers == r.prefill_replicas &&
        e.prefill_gpus == p.tp * p.dp && e.prefill_ep == p.ep && e.decode_workers == r.decode_replicas &&
        e.decode_gpus == d.tp * d.dp && e.decode_ep == d.ep && e.concurrency == static_cast<int>(r.concurrency) &&
        e.run_date == r.run_date) {
      r.draft_tokens = e.drafts;
      r.overlap_scheduler_off = !e.overlap;
      return;
    }
  }
}

}  // namespace agentsim::calib
