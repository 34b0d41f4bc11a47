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

}  // namespace

void apply_inferencex_disagg_drafts(MeasuredRun& r) {
  if (r.prefill_replicas <= 0 || !r.speculative || r.model != "deepseek-r1") return;
  const bool fp4 = is_fp4_format(r.experts_dtype);
  if (r.system == "mi355x-8" && r.engine == "sglang" && r.id.find("-mori-") != std::string::npos) {
    const PlanDegrees p = plan_degrees(r.prefill_plan.empty() ? r.plan : r.prefill_plan), d = plan_degrees(r.plan);
    for (const MoriDrafts& m : kMori) {
      if (m.fp4 == fp4 && m.isl == r.isl && m.osl == r.osl && m.prefill_workers == r.prefill_replicas &&
          m.prefill_tp == p.tp * p.dp && m.prefill_ep == p.ep && m.decode_workers == r.decode_replicas &&
          m.decode_tp == d.tp * d.dp && m.decode_ep == d.ep && m.concurrency == static_cast<int>(r.concurrency) &&
          m.run_date == r.run_date) {
        r.draft_tokens = m.drafts;
        r.overlap_scheduler_off = r.run_date < "2026-05-07";
        return;
      }
    }
  }
}

}  // namespace agentsim::calib
