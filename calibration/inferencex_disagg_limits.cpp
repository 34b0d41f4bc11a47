#include "calibration/inferencex_disagg_limits.hpp"

#include <array>
#include <string_view>

#include "calibration/measured_names.hpp"

namespace agentsim::calib {

namespace {

struct DecodeRecipe {
  std::string_view system;
  bool fp4, mtp;
  long long isl, osl;
  int concurrency, decode_workers;
  std::string_view run_date;
  int max_batch_size;  // the recipe's decode max_batch_size
  // The recipe (nvidia-master.yaml's CONFIG_FILE, under recipes/trtllm/), or the inline setting.
};

// Every dynamo-trt row of serving-points-2 whose config names its recipe (nvidia-master.yaml at
// commits d7a6d4e70 2026-01-29, d7dbd045b 2026-02-05, 2767db504 2026-02-08, 78d48618f 2026-02-12,
// 6a5dad463 2026-03-23, c040b5cf2 2025-12-19). Rows not listed (H200, whose recorded
// concurrencies are in no config; two GB200 runs of December 2025) keep max_sequences.
constexpr std::array kRecipes = {
    // b200-fp4/{1k1k,8k1k}/mtp/ctx1_gen5_tep8_batch1_eplb0_mtp3.yaml
    DecodeRecipe{"hgx-b200", true, true, 1024, 1024, 6, 5, "2026-01-29", 1},
    DecodeRecipe{"hgx-b200", true, true, 8192, 1024, 6, 5, "2026-01-29", 1},
    // b200-fp4/1k1k/stp/ctx1_gen5_tep8_batch32_eplb0_mtp0.yaml, 8k1k/stp/ctx1_gen5_tep8_batch8_...
    DecodeRecipe{"hgx-b200", true, false, 1024, 1024, 15, 5, "2026-01-29", 32},
    DecodeRecipe{"hgx-b200", true, false, 8192, 1024, 15, 5, "2026-01-29", 8},
    // b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_{4,32}.yaml
    DecodeRecipe{"hgx-b200", false, false, 1024, 1024, 4, 3, "2026-03-23", 1024},
    DecodeRecipe{"hgx-b200", false, false, 1024, 1024, 32, 3, "2026-03-23", 1024},
    // b200-fp8/8k1k/stp/ctx1_gen1_tp8_batch1_eplb0_mtp0_1.yaml, ctx1_gen4_tp8_batch32_eplb0_mtp0_32.yaml
    DecodeRecipe{"hgx-b200", false, false, 8192, 1024, 1, 1, "2026-02-12", 1},
    DecodeRecipe{"hgx-b200", false, false, 8192, 1024, 1, 1, "2026-03-23", 1},
    DecodeRecipe{"hgx-b200", false, false, 8192, 1024, 32, 4, "2026-03-23", 32},
    // gb200-fp4/{1k1k,8k1k}/mtp/ctx1_gen4_tep8_batch8_eplb0_mtp3.yaml, 1k8k/mtp/ctx1_gen7_tep8_batch1_...
    DecodeRecipe{"gb200-nvl72", true, true, 1024, 1024, 4, 4, "2026-03-23", 8},
    DecodeRecipe{"gb200-nvl72", true, true, 8192, 1024, 4, 4, "2026-03-23", 8},
    DecodeRecipe{"gb200-nvl72", true, true, 1024, 8192, 7, 7, "2026-03-23", 1},
    // inline DECODE_MAX_BATCH_SIZE=128 (2025-12-19)
    DecodeRecipe{"gb200-nvl72", true, false, 1024, 1024, 4, 4, "2025-12-19", 128},
    // gb200-fp4/1k1k/stp/ctx1_gen4_tep8_batch32_..., 1k8k/stp/ctx1_gen15_tep4_batch4_...,
    // 8k1k/stp/ctx1_gen4_tep8_batch16_eplb0_mtp0.yaml
    DecodeRecipe{"gb200-nvl72", true, false, 1024, 1024, 24, 4, "2026-03-23", 32},
    DecodeRecipe{"gb200-nvl72", true, false, 1024, 8192, 60, 15, "2026-03-23", 4},
    DecodeRecipe{"gb200-nvl72", true, false, 8192, 1024, 12, 4, "2026-03-23", 16},
    // gb200-fp8/1k8k/mtp/ctx1_gen4_tep8_batch2_eplb0_mtp3_8.yaml
    DecodeRecipe{"gb200-nvl72", false, true, 1024, 8192, 4, 4, "2026-02-05", 2},
    // gb200-fp8/1k1k/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0_3.yaml, ..._batch8_eplb0_mtp0_27.yaml,
    // 1k8k/stp/ctx1_gen4_tep8_batch8_eplb0_mtp0_36.yaml, 8k1k/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0_6.yaml,
    // 8k1k/stp/ctx1_gen3_tep8_batch4_eplb0_mtp0_18.yaml
    DecodeRecipe{"gb200-nvl72", false, false, 1024, 1024, 3, 3, "2026-02-05", 1},
    DecodeRecipe{"gb200-nvl72", false, false, 1024, 1024, 27, 3, "2026-02-05", 8},
    DecodeRecipe{"gb200-nvl72", false, false, 1024, 8192, 36, 4, "2026-02-05", 8},
    DecodeRecipe{"gb200-nvl72", false, false, 8192, 1024, 6, 3, "2026-02-05", 1},
    DecodeRecipe{"gb200-nvl72", false, false, 8192, 1024, 18, 3, "2026-02-05", 4},
    // h100-fp8/8k1k/mtp/ctx1_gen3_tep16_batch8_eplb0_mtp3.yaml; h100-fp8/1k1k/stp/ctx1_gen3_tep16_batch1_
    // and _batch8_eplb0_mtp0.yaml; h100-fp8/8k1k/stp/ctx1_gen3_tep16_batch1_ and _batch2_eplb0_mtp0.yaml
    DecodeRecipe{"hgx-h100", false, true, 8192, 1024, 30, 3, "2026-02-08", 8},
    DecodeRecipe{"hgx-h100", false, false, 1024, 1024, 6, 3, "2026-02-08", 1},
    DecodeRecipe{"hgx-h100", false, false, 1024, 1024, 30, 3, "2026-02-08", 8},
    DecodeRecipe{"hgx-h100", false, false, 8192, 1024, 6, 3, "2026-02-08", 1},
    DecodeRecipe{"hgx-h100", false, false, 8192, 1024, 9, 3, "2026-02-08", 2},
};

}  // namespace

void apply_inferencex_disagg_limits(MeasuredRun& r) {
  if (r.prefill_replicas <= 0 || r.model != "deepseek-r1" || !id_names_framework(r.id, "dynamo")) return;
  r.decode_round_robin = true;
  if (r.engine != "trtllm") return;
  const bool fp4 = is_fp4_format(r.experts_dtype);
  for (const DecodeRecipe& d : kRecipes) {
    if (d.system == r.system && d.fp4 == fp4 && d.mtp == r.speculative && d.isl == r.isl && d.osl == r.osl &&
        d.concurrency == static_cast<int>(r.concurrency) && d.decode_workers == r.decode_replicas &&
        d.run_date == r.run_date) {
      r.decode_max_sequences = d.max_batch_size;
      if (d.mtp) r.draft_tokens = 3;  // every MTP recipe read is an `_mtp3` one: num_nextn_predict_layers 3
      return;
    }
  }
}

}  // namespace agentsim::calib
