#pragma once
// Achieved fraction of peak for the kernels of one step, looked up by shape:
// matmuls by (m, n, k), grouped expert matmuls, attention, HBM traffic by
// size, the per-kernel launch floor and a kernel's own floor per call. A
// lookup outside the measured range is flagged so `explain` can show it;
// nothing is fitted at run time.
// The one efficiency lookup of the step cost: absent (StepCostOptions::kernels
// null), the options' constant hw::Efficiency applies to every shape;
// calibrated, exp::ProfileEfficiency looks a profile's fitted tables up.
#include <string>

#include "hwmodels/dtype.hpp"
#include "hwmodels/efficiency.hpp"

namespace agentsim::serving {

enum class KernelKind { kGemm, kGroupedGemm, kAttentionDecode, kAttentionPrefill, kOther };

struct KernelShape {
  KernelKind kind = KernelKind::kGemm;
  hw::DType dtype = hw::DType::kBf16;
  double m = 1, n = 1, k = 1;  // GEMM rows (tokens), output and reduction widths; grouped: per group
  double groups = 1;           // grouped GEMM: expert weight slices the priced (busiest) device streams
  double weight_bytes = 0;     // grouped GEMM: the expert weight bytes one call streams
  double batch = 1;            // sequences (attention)
  double context = 1;          // tokens attended per query (attention)
  double flops = 0;            // work of one call
  double bytes = 0;            // HBM bytes of one call
  double query_heads = 0;      // a dense-MLA layer's decode-kernel call (decode, or verifying drafts): sequences x
                               // query heads x queries a sequence; else 0
};

// The least time one call takes whatever it reads (a kernel's fixed cost, measured at a tiny
// input), and the table behind it.
struct CallFloor {
  double time_s = 0;          // 0: none measured for this call (kernel)
  bool extrapolated = false;  // outside the measured range (edge value used)
  std::string note;
};

// A single-system all-reduce from a measured table (nccl-tests/rccl-tests bus bandwidth by size).
struct MeasuredCollective {
  double time_s = -1;  // negative: no measured table (the topology model prices it)
  std::string source;  // e.g. "nccl_all_reduce_1node table, derived from mi300x table"
};

struct EfficiencyValue {
  double value = 1.0;          // achieved / peak in (0, 1]
  bool extrapolated = false;   // outside the measured range (edge value used)
  std::string note;            // which table and axis, when extrapolated or a fallback
};

class KernelEfficiency {
 public:
  virtual ~KernelEfficiency() = default;
  virtual EfficiencyValue compute(const KernelShape& s) const = 0;
  virtual EfficiencyValue memory(const KernelShape& s) const = 0;
  // Seconds one kernel costs at least, and the table behind it; `graph` = replayed from a CUDA
  // graph. time_s 0 keeps the accelerator's catalog floor.
  virtual CallFloor launch_floor(bool graph) const = 0;
  // The floor under one call of `s` (today: a dense-MLA decode-kernel call, by its query heads,
  // s.query_heads > 0); time 0 where none is measured.
  virtual CallFloor call_floor(const KernelShape& s) const {
    (void)s;
    return {};
  }
  // One all-reduce of `bytes` per member over `group` ranks of one system, as measured.
  virtual MeasuredCollective all_reduce(double bytes, int group) const {
    (void)bytes;
    (void)group;
    return {};
  }
  // True when compute() and memory() give the same values (to rounding) for every shape on the
  // segment from `a` to `b` (same kind and dtype, each field linear between them). The decode
  // fast-forward then knows a stretch's step cost is affine without pricing inside it; false
  // (the default) when not known.
  virtual bool constant_between(const KernelShape& a, const KernelShape& b) const {
    (void)a;
    (void)b;
    return false;
  }
  virtual std::string name() const = 0;  // e.g. "constant" or the profile's source
};

}  // namespace agentsim::serving
