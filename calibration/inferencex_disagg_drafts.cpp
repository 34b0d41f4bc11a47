#include "calibration/inferencex_disagg_drafts.hpp"

#include <array>
#include <string_view>

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

namespace {

struct MoriDrafts {
  bool fp4;
  long long isl, osl;
  int prefill_workers, prefill_tp, prefill_ep, decode_workers, decode_tp, decode_ep, concurrency;
  std::string_view run_date;
  int drafts;  // DECODE_MTP_SIZE
};

// Every MTP row of serving-points-2's MI355X MoRI runs; the comment names the amd-master.yaml
// config and the commit read.
constexpr std::array kMori = {
    MoriDrafts{true, 1024, 1024, 1, 8, 1, 1, 8, 1, 1, "2026-05-27", 3},  // dsr1-fp4-mi355x-sglang-disagg-mtp @bb0005581
    MoriDrafts{true, 1024, 1024, 1, 8, 1, 1, 8, 1, 8, "2026-05-27", 3},  // dsr1-fp4-mi355x-sglang-disagg-mtp @bb0005581
    MoriDrafts{true, 1024, 1024, 1, 8, 1, 2, 8, 1, 8, "2026-03-13", 3},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    MoriDrafts{true, 1024, 1024, 1, 8, 1, 2, 8, 1, 16, "2026-03-03", 3},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4706e7009
    MoriDrafts{true, 1024, 1024, 1, 8, 1, 2, 8, 1, 32, "2026-03-13", 3},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    MoriDrafts{true, 1024, 1024, 1, 4, 1, 2, 8, 1, 64, "2026-05-27", 2},  // dsr1-fp4-mi355x-sglang-disagg-mtp @bb0005581
    MoriDrafts{true, 1024, 1024, 1, 8, 1, 2, 8, 1, 64, "2026-03-13", 1},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    MoriDrafts{true, 1024, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-11", 1},  // dsr1-fp4-mi355x-sglang-disagg @2376a7182
    MoriDrafts{true, 1024, 8192, 1, 8, 8, 2, 8, 8, 32, "2026-02-04", 2},  // dsr1-fp4-mi355x-sglang-disagg @6f6afc1cb
    MoriDrafts{true, 8192, 1024, 1, 8, 1, 1, 8, 1, 1, "2026-05-31", 3},  // dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp @2dca60196
    MoriDrafts{true, 8192, 1024, 1, 8, 1, 1, 8, 1, 8, "2026-03-13", 3},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    MoriDrafts{true, 8192, 1024, 1, 8, 1, 2, 8, 1, 16, "2026-05-31", 3},  // dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp @2dca60196
    MoriDrafts{true, 8192, 1024, 1, 8, 1, 2, 8, 1, 64, "2026-05-31", 3},  // dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp @2dca60196
    MoriDrafts{true, 8192, 1024, 1, 4, 1, 2, 8, 1, 64, "2026-03-13", 1},  // dsr1-fp4-mi355x-sglang-disagg-mtp @4230b97ca
    MoriDrafts{true, 8192, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-11", 1},  // dsr1-fp4-mi355x-sglang-disagg @2376a7182
    MoriDrafts{false, 1024, 1024, 1, 8, 1, 2, 8, 1, 4, "2026-02-16", 2},  // dsr1-fp8-mi355x-sglang-disagg @6e97ccc73
    MoriDrafts{false, 1024, 1024, 1, 4, 1, 1, 8, 1, 8, "2026-03-03", 2},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    MoriDrafts{false, 1024, 1024, 1, 4, 1, 1, 8, 1, 32, "2026-03-03", 2},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    MoriDrafts{false, 1024, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-06", 2},  // dsr1-fp8-mi355x-sglang-disagg @6f6afc1cb
    MoriDrafts{false, 1024, 8192, 1, 8, 8, 2, 8, 8, 32, "2026-02-06", 2},  // dsr1-fp8-mi355x-sglang-disagg @6f6afc1cb
    MoriDrafts{false, 8192, 1024, 1, 8, 1, 2, 8, 1, 4, "2026-02-16", 2},  // dsr1-fp8-mi355x-sglang-disagg @6e97ccc73
    MoriDrafts{false, 8192, 1024, 1, 8, 1, 2, 8, 1, 8, "2026-03-03", 2},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    MoriDrafts{false, 8192, 1024, 1, 4, 1, 1, 8, 1, 16, "2026-03-03", 2},  // dsr1-fp8-mi355x-sglang-disagg-mtp @4706e7009
    MoriDrafts{false, 8192, 1024, 1, 8, 8, 2, 8, 8, 4, "2026-02-11", 1},  // dsr1-fp8-mi355x-sglang-disagg @2376a7182
    MoriDrafts{false, 8192, 1024, 1, 8, 8, 2, 8, 8, 32, "2026-02-06", 2},  // dsr1-fp8-mi355x-sglang-disagg @6f6afc1cb
};

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
struct DynamoSglangDrafts {
  std::string_view system;
  bool fp4;
  long long isl, osl;
  int prefill_workers, prefill_gpus, prefill_ep, decode_workers, decode_gpus, decode_ep, concurrency;
  std::string_view run_date;
  int drafts;    // speculative-num-steps
  bool spec_v2;  // SGLANG_ENABLE_SPEC_V2 set: the overlap scheduler runs
};

constexpr std::array kDynamoSglang = {
    // sglang/dsr1/b200-fp4/1k1k/disagg/mtp/1k1k_mtp_lowlat_0.yaml @263aace86
    DynamoSglangDrafts{"hgx-b200", true, 1024, 1024, 1, 4, 4, 5, 8, 8, 16, "2026-06-11", 2, true},
    // sglang/dsr1/b200-fp4/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml, _2.yaml @263aace86
    DynamoSglangDrafts{"hgx-b200", true, 8192, 1024, 1, 4, 1, 5, 8, 1, 4, "2026-06-11", 3, true},
    DynamoSglangDrafts{"hgx-b200", true, 8192, 1024, 1, 4, 1, 5, 8, 1, 8, "2026-06-11", 3, true},
    DynamoSglangDrafts{"hgx-b200", true, 8192, 1024, 1, 4, 1, 1, 8, 1, 64, "2026-06-11", 3, true},
    // recipes/b200-fp4/8k1k/mtp/low-latency-tp4-1p-tp8-1d.yaml @5063eb43 (config @2376a7182)
    DynamoSglangDrafts{"hgx-b200", true, 8192, 1024, 1, 4, 1, 1, 8, 1, 8, "2026-02-11", 2, true},
    // recipes/b200-fp8/{1k1k,8k1k}/mtp/low-latency-tep8-1p1d.yaml, 8k1k/.../low-latency-tep8-1p6d.yaml
    // @5063eb43 (configs @8fe499ff4, @ee032b37f)
    DynamoSglangDrafts{"hgx-b200", false, 1024, 1024, 1, 8, 8, 1, 8, 8, 4, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-b200", false, 1024, 1024, 1, 8, 8, 1, 8, 8, 64, "2026-02-10", 2, true},
    DynamoSglangDrafts{"hgx-b200", false, 8192, 1024, 1, 8, 8, 6, 8, 8, 4, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-b200", false, 8192, 1024, 1, 8, 8, 1, 8, 8, 64, "2026-02-13", 2, true},
    // recipes/h100/<isl><osl>/mtp/h100-fp8-1p2d-max-tp-mtp.yaml, -1p1d-max-dep-mtp.yaml,
    // 8k1k/mtp/h100-fp8-1p1d-max-tp-mtp.yaml @616191ca (config @ee032b37f); the 1k1k DEP recipe
    // alone leaves SGLANG_ENABLE_SPEC_V2 unset
    DynamoSglangDrafts{"hgx-h100", false, 1024, 1024, 1, 16, 1, 2, 16, 1, 8, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 1024, 1, 16, 1, 2, 16, 1, 32, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 1024, 1, 16, 1, 1, 16, 16, 1, "2026-02-13", 2, false},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 1024, 1, 16, 1, 1, 16, 16, 4, "2026-02-13", 2, false},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 8192, 1, 16, 1, 2, 16, 1, 2, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 8192, 1, 16, 1, 2, 16, 1, 8, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 8192, 1, 16, 1, 2, 16, 1, 64, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 8192, 1, 16, 1, 1, 16, 16, 1, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 1024, 8192, 1, 16, 1, 1, 16, 16, 32, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 8192, 1024, 1, 16, 1, 1, 16, 1, 8, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 8192, 1024, 1, 16, 1, 1, 16, 1, 32, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 8192, 1024, 1, 16, 1, 1, 16, 16, 1, "2026-02-13", 2, true},
    DynamoSglangDrafts{"hgx-h100", false, 8192, 1024, 1, 16, 1, 1, 16, 16, 4, "2026-02-13", 2, true},
    // recipes/h200/1k1k/low-latency-1p9d-mtp.yaml, 8k1k/bs4-1p7d-mtp.yaml, bs8-1p6d-mtp.yaml,
    // bs16-1p3d-mtp.yaml @35d6fb1d (config @04b564b39)
    DynamoSglangDrafts{"hgx-h200", false, 1024, 1024, 1, 8, 1, 9, 8, 1, 16, "2026-02-07", 2, true},
    DynamoSglangDrafts{"hgx-h200", false, 8192, 1024, 1, 8, 1, 7, 8, 1, 1, "2026-02-07", 2, true},
    DynamoSglangDrafts{"hgx-h200", false, 8192, 1024, 1, 8, 1, 6, 8, 1, 8, "2026-02-07", 2, true},
    DynamoSglangDrafts{"hgx-h200", false, 8192, 1024, 1, 8, 1, 3, 8, 1, 64, "2026-02-07", 2, true},
};

}  // namespace

void apply_inferencex_disagg_drafts(MeasuredRun& r) {
  if (r.prefill_replicas <= 0 || !r.speculative || r.model != "deepseek-r1" || r.engine != "sglang") return;
  const bool fp4 = is_fp4_format(r.experts_dtype);
  const PlanDegrees p = plan_degrees(r.prefill_plan.empty() ? r.plan : r.prefill_plan), d = plan_degrees(r.plan);
  const int prefill_gpus = p.tp * p.dp, decode_gpus = d.tp * d.dp, concurrency = static_cast<int>(r.concurrency);
  // The row's precision, lengths, workers, degrees, concurrency and run date are an entry's.
  const auto is = [&](const auto& e) {
    return e.fp4 == fp4 && e.isl == r.isl && e.osl == r.osl && e.prefill_workers == r.prefill_replicas &&
           e.prefill_ep == p.ep && e.decode_workers == r.decode_replicas && e.decode_ep == d.ep &&
           e.concurrency == concurrency && e.run_date == r.run_date;
  };
  if (r.system == "mi355x-8" && r.id.find("-mori-") != std::string::npos) {
    for (const MoriDrafts& m : kMori) {
      if (is(m) && m.prefill_tp == prefill_gpus && m.decode_tp == decode_gpus) {
        r.draft_tokens = m.drafts;
        r.overlap_scheduler_off = r.run_date < "2026-05-07";
        return;
      }
    }
  }
  if (r.id.find("-dynamo-sglang-") != std::string::npos) {
    for (const DynamoSglangDrafts& e : kDynamoSglang) {
      if (e.system == r.system && is(e) && e.prefill_gpus == prefill_gpus && e.decode_gpus == decode_gpus) {
        r.draft_tokens = e.drafts;
        r.overlap_scheduler_off = !e.spec_v2;
        return;
      }
    }
  }
}

}  // namespace agentsim::calib
