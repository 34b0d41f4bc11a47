#include "calibration/cuda/cuda_microbenchmarks.hpp"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#ifdef AGENTSIM_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw core::Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw core::Error(std::string("cuBLASLt: ") + what + ": status " + std::to_string(int(s)));
}
#ifdef AGENTSIM_HAVE_NCCL
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw core::Error(std::string("NCCL: ") + what + ": " + ncclGetErrorString(r));
}
#endif

// Device buffer owned for the duration of one measurement.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { check(cudaMalloc(&p, std::max<size_t>(bytes, 256)), "cudaMalloc"); check(cudaMemset(p, 0, bytes), "cudaMemset"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Timing {
  double min_rep_s;
  int reps;
};

// Best seconds per call of `f` (which enqueues on `stream`), timed with events.
template <class F>
double time_gpu(cudaStream_t stream, F&& f, const Timing& t) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  f();
  check(cudaStreamSynchronize(stream), "warm-up");
  auto run = [&](long iters) {
    check(cudaEventRecord(a, stream), "record");
    for (long i = 0; i < iters; ++i) f();
    check(cudaEventRecord(b, stream), "record");
    check(cudaEventSynchronize(b), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    return ms * 1e-3;
  };
  long iters = 1;
  for (;;) {
    const double s = run(iters);
    if (s >= t.min_rep_s || iters > (1L << 24)) break;
    iters = s <= 0 ? iters * 16 : std::max(iters * 2, long(std::ceil(double(iters) * t.min_rep_s * 1.2 / s)));
  }
  double best = 1e30;
  for (int r = 0; r < t.reps; ++r) best = std::min(best, run(iters) / double(iters));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best;
}

std::vector<double> pow2(double lo, double hi) {
  std::vector<double> v;
  for (double x = lo; x <= hi; x *= 2) v.push_back(x);
  return v;
}

// ---- kernels ----

__global__ void read_kernel(const float4* __restrict__ in, size_t n, float* out) {
  float acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f) out[0] = acc;  // never true for zeroed input; keeps the reads alive
}

__global__ void empty_kernel() {}

// One warp per (sequence, head); each lane owns head_dim / 32 dimensions.
template <int D>
__global__ void decode_attention_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                        const __nv_bfloat16* __restrict__ v, const int* __restrict__ block_table,
                                        int blocks_per_seq, int context, int heads, int block_tokens, float* out) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const int batch_heads = gridDim.x * blockDim.x / 32;
  if (warp >= batch_heads) return;
  const int seq = warp / heads, h = warp % heads;
  constexpr int P = D / 32;
  float qv[P], acc[P];
  for (int i = 0; i < P; ++i) {
    qv[i] = __bfloat162float(q[(size_t(seq) * heads + h) * D + lane * P + i]);
    acc[i] = 0;
  }
  float mx = -1e30f, denom = 0;
  const float scale = rsqrtf(float(D));
  for (int t = 0; t < context; ++t) {
    const size_t blk = size_t(block_table[seq * blocks_per_seq + t / block_tokens]);
    const size_t off = ((blk * block_tokens + t % block_tokens) * heads + h) * D + lane * P;
    float s = 0;
    for (int i = 0; i < P; ++i) s += qv[i] * __bfloat162float(k[off + i]);
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    s *= scale;
    const float nm = fmaxf(mx, s), corr = __expf(mx - nm), p = __expf(s - nm);
    denom = denom * corr + p;
    for (int i = 0; i < P; ++i) acc[i] = acc[i] * corr + p * __bfloat162float(v[off + i]);
    mx = nm;
  }
  for (int i = 0; i < P; ++i) out[(size_t(seq) * heads + h) * D + lane * P + i] = acc[i] / denom;
}

// Reference causal prefill: one thread per (sequence, head, query), online softmax.
template <int D>
__global__ void prefill_attention_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                         const __nv_bfloat16* __restrict__ v, int seq, int heads, float* out) {
  const long idx = blockIdx.x * long(blockDim.x) + threadIdx.x;
  const long total = long(gridDim.y) * heads * seq;
  if (idx >= total) return;
  const int i = int(idx % seq);
  const long bh = idx / seq;
  const size_t base = size_t(bh) * seq * D;
  float qv[D], acc[D];
  for (int d = 0; d < D; ++d) {
    qv[d] = __bfloat162float(q[base + size_t(i) * D + d]);
    acc[d] = 0;
  }
  float mx = -1e30f, denom = 0;
  const float scale = rsqrtf(float(D));
  for (int j = 0; j <= i; ++j) {
    float s = 0;
    for (int d = 0; d < D; ++d) s += qv[d] * __bfloat162float(k[base + size_t(j) * D + d]);
    s *= scale;
    const float nm = fmaxf(mx, s), corr = __expf(mx - nm), p = __expf(s - nm);
    denom = denom * corr + p;
    for (int d = 0; d < D; ++d) acc[d] = acc[d] * corr + p * __bfloat162float(v[base + size_t(j) * D + d]);
    mx = nm;
  }
  for (int d = 0; d < D; ++d) out[base + size_t(i) * D + d] = acc[d] / denom;
}

// ---- cuBLASLt GEMM: D[n x m] = W[k x n]^T * X[k x m] (column-major), the "TN"
// layout FP8 requires; m is tokens, n output features, k input features. ----

struct LtGemm {
  cublasLtHandle_t lt;
  DeviceBuffer workspace{32u << 20};
  LtGemm() { check(cublasLtCreate(&lt), "create"); }
  ~LtGemm() { cublasLtDestroy(lt); }

  // Seconds per GEMM, or a negative value when no algorithm supports the shape.
  double time(cudaStream_t stream, int m, int n, int k, int bits, const Timing& t, int groups = 1) {
    const cudaDataType_t in = bits == 8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const size_t in_bytes = bits == 8 ? 1 : 2;
    std::vector<DeviceBuffer*> w, x, d;
    for (int g = 0; g < groups; ++g) {
      w.push_back(new DeviceBuffer(size_t(k) * n * in_bytes));
      x.push_back(new DeviceBuffer(size_t(k) * m * in_bytes));
      d.push_back(new DeviceBuffer(size_t(n) * m * 2));
    }
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    const cublasOperation_t trans = CUBLAS_OP_T, no = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans), "transa");
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no), "transb");
    check(cublasLtMatrixLayoutCreate(&la, in, k, n, k), "layout a");
    check(cublasLtMatrixLayoutCreate(&lb, in, k, m, k), "layout b");
    check(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, m, n), "layout d");
    cublasLtMatmulPreference_t pref;
    check(cublasLtMatmulPreferenceCreate(&pref), "pref");
    size_t ws = 32u << 20;
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "ws");
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &heur, &found);
    double s = -1;
    if (hs == CUBLAS_STATUS_SUCCESS && found > 0) {
      const float alpha = 1, beta = 0;
      s = time_gpu(stream, [&] {
        for (int g = 0; g < groups; ++g)
          check(cublasLtMatmul(lt, op, &alpha, w[g]->p, la, x[g]->p, lb, &beta, d[g]->p, ld, d[g]->p, ld, &heur.algo,
                               workspace.p, ws, stream), "matmul");
      }, t);
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(op);
    for (auto* b : w) delete b;
    for (auto* b : x) delete b;
    for (auto* b : d) delete b;
    return s;
  }
};

class CudaMicrobenchmarks final : public Microbenchmarks {
 public:
  std::string backend() const override { return "cuda"; }

  CalibrationFile run(const RunOptions& o) override {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      throw core::Error(core::SourceLocation{"", 0, "--backend"},
                        std::string("no CUDA device available (") + (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
    check(cudaSetDevice(0), "set device");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    int driver = 0, runtime = 0, sm_khz = 0, mem_khz = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
    const bool quick = o.quick;
    const Timing t = quick ? Timing{0.002, 3} : Timing{0.01, 5};

    CalibrationFile f;
    f.attributes["backend"] = "cuda";
    f.attributes["device"] = prop.name;
    f.attributes["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    f.attributes["driver"] = "CUDA driver " + std::to_string(driver) + ", runtime " + std::to_string(runtime);
    f.attributes["clocks"] = "max SM " + std::to_string(sm_khz / 1000) + " MHz, memory " + std::to_string(mem_khz / 1000) + " MHz";
    f.attributes["date"] = utc_timestamp();
    f.attributes["command_line"] = o.command_line;
    f.attributes["gpus"] = std::to_string(count);
    f.attributes["mode"] = quick ? "quick" : "full";
    f.attributes["fp4"] = "not measured: this backend has no block-scaled FP4 GEMM kernel";
    f.attributes["peak_method"] = "none: the fit takes each family's best measured rate; rescale by a datasheet peak";
    cudaStream_t s;
    check(cudaStreamCreate(&s), "stream");
    auto add = [&](MeasurementTable tab) {
      if (o.progress) o.progress(tab.family + ": " + std::to_string(tab.rows()) + " shapes");
      f.tables[tab.family] = std::move(tab);
    };

    LtGemm lt;
    {
      MeasurementTable g;
      g.family = "gemm";
      g.attributes["monotone"] = "m:+";
      std::vector<int> bits = {16};
      if (prop.major >= 9) bits.push_back(8);
      const auto ms = pow2(1, quick ? 4096 : 16384);
      const auto nks = quick ? std::vector<double>{1024, 4096, 8192} : pow2(1024, 16384);
      struct S { int m, n, k; bool held; };
      std::vector<S> shapes;
      for (double n : nks) for (double k : nks) for (double m : ms) shapes.push_back({int(m), int(n), int(k), false});
      for (S h : {S{3, 3072, 3072, true}, S{48, 6144, 4096, true}, S{768, 3072, 6144, true}, S{3072, 2048, 2048, true}}) shapes.push_back(h);
      for (int b : bits)
        for (const S& sh : shapes) {
          const double sec = lt.time(s, sh.m, sh.n, sh.k, b, t);
          if (sec <= 0) continue;
          const double flops = 2.0 * sh.m * sh.n * sh.k;
          g.add_row({{"m", sh.m}, {"n", sh.n}, {"k", sh.k}, {"dtype_bits", double(b)}, {"flops", flops},
                     {"achieved_flops_per_s", flops / sec}, {"time_s", sec}, {"held_out", sh.held ? 1.0 : 0.0}});
        }
      add(std::move(g));
    }
    {
      MeasurementTable g;
      g.family = "grouped_gemm";
      g.attributes["monotone"] = "m:+";
      g.attributes["kernel"] = "one cuBLASLt BF16 GEMM per expert on one stream (unfused MoE)";
      const int n = 2048, k = 7168;
      auto row = [&](int groups, int m, bool held) {
        const double sec = lt.time(s, m, n, k, 16, t, groups);
        if (sec <= 0) return;
        const double flops = 2.0 * groups * m * n * k;
        g.add_row({{"groups", groups}, {"m", m}, {"n", n}, {"k", k}, {"dtype_bits", 16}, {"flops", flops},
                   {"achieved_flops_per_s", flops / sec}, {"time_s", sec}, {"held_out", held ? 1.0 : 0.0}});
      };
      for (double gr : pow2(1, quick ? 16 : 64)) for (double m : pow2(1, quick ? 128 : 512)) row(int(gr), int(m), false);
      row(6, 24, true);
      row(12, 3, true);
      add(std::move(g));
    }
    const double max_bytes = quick ? std::ldexp(1.0, 30) : std::ldexp(1.0, 32);
    auto sizes_table = [&](const std::string& family, double hi, auto measure) {
      MeasurementTable m;
      m.family = family;
      // Small transfers pay a fixed launch or setup cost: efficiency rises with size.
      m.attributes["monotone"] = "size_bytes:+";
      for (double sz : pow2(4096, hi)) measure(m, sz, false);
      for (double sz : {3.0 * 4096, 3.0 * 1048576, 3.0 * 67108864}) if (sz < hi) measure(m, sz, true);
      add(std::move(m));
    };
    auto put = [](MeasurementTable& m, double size, double bytes, double sec, bool held) {
      m.add_row({{"size_bytes", size}, {"bytes", bytes}, {"achieved_bytes_per_s", bytes / sec}, {"time_s", sec}, {"held_out", held ? 1.0 : 0.0}});
    };
    sizes_table("mem_read", max_bytes, [&](MeasurementTable& m, double sz, bool held) {
      DeviceBuffer in{size_t(sz)}, out{4};
      const size_t n4 = size_t(sz) / 16;
      const int blocks = std::max(1, std::min(prop.multiProcessorCount * 8, int((n4 + 255) / 256)));
      const double sec = time_gpu(s, [&] { read_kernel<<<blocks, 256, 0, s>>>((const float4*)in.p, n4, (float*)out.p); }, t);
      put(m, sz, sz, sec, held);
    });
    sizes_table("mem_copy", max_bytes / 2, [&](MeasurementTable& m, double sz, bool held) {
      DeviceBuffer a{size_t(sz)}, b{size_t(sz)};
      const double sec = time_gpu(s, [&] { check(cudaMemcpyAsync(b.p, a.p, size_t(sz), cudaMemcpyDeviceToDevice, s), "copy"); }, t);
      put(m, sz, 2 * sz, sec, held);
    });
    for (const bool h2d : {true, false}) {
      sizes_table(h2d ? "h2d_copy" : "d2h_copy", quick ? std::ldexp(1.0, 28) : std::ldexp(1.0, 30), [&](MeasurementTable& m, double sz, bool held) {
        DeviceBuffer dev{size_t(sz)};
        void* host = nullptr;
        check(cudaMallocHost(&host, size_t(sz)), "cudaMallocHost");
        const double sec = time_gpu(s, [&] {
          check(cudaMemcpyAsync(h2d ? dev.p : host, h2d ? host : dev.p, size_t(sz), h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s), "copy");
        }, t);
        cudaFreeHost(host);
        put(m, sz, sz, sec, held);
      });
    }
    {
      MeasurementTable m;
      m.family = "attention_decode";
      m.attributes["monotone"] = "kv_bytes:+";  // fitted by the KV bytes a call reads (kernel_family.cpp)
      m.attributes["kernel"] = "reference BF16 paged decode, one warp per (sequence, head), 8 heads x 128, 16-token blocks";
      const int heads = 8, D = 128, bt = 16;
      auto row = [&](int batch, int ctx, bool held) {
        const double bytes = double(batch) * ctx * heads * D * 2.0 * 2.0;
        if (bytes > 8e9) return;
        const int bps = (ctx + bt - 1) / bt;
        std::vector<int> table(size_t(batch) * bps);
        // Scatter blocks as a paged allocator would: a fixed stride permutation.
        for (size_t i = 0; i < table.size(); ++i) table[i] = int((i * 7919) % table.size());
        DeviceBuffer q(size_t(batch) * heads * D * 2), k(size_t(bytes / 2)), v(size_t(bytes / 2)), tb(table.size() * 4), out(size_t(batch) * heads * D * 4);
        check(cudaMemcpy(tb.p, table.data(), table.size() * 4, cudaMemcpyHostToDevice), "table");
        const int warps = batch * heads, threads = 128, blocks = (warps * 32 + threads - 1) / threads;
        const double sec = time_gpu(s, [&] {
          decode_attention_kernel<D><<<blocks, threads, 0, s>>>((const __nv_bfloat16*)q.p, (const __nv_bfloat16*)k.p, (const __nv_bfloat16*)v.p,
                                                                 (const int*)tb.p, bps, ctx, heads, bt, (float*)out.p);
        }, t);
        m.add_row({{"batch", batch}, {"context", ctx}, {"bytes", bytes}, {"achieved_bytes_per_s", bytes / sec}, {"time_s", sec}, {"held_out", held ? 1.0 : 0.0}});
      };
      for (double b : pow2(1, quick ? 64 : 256)) for (double c : pow2(1024, quick ? 16384 : 65536)) row(int(b), int(c), false);
      row(24, 3072, true);
      row(3, 6144, true);
      add(std::move(m));
    }
    {
      MeasurementTable m;
      m.family = "attention_prefill";
      m.attributes["monotone"] = "seq:+";
      m.attributes["kernel"] = "reference BF16 causal attention, one thread per query (not FlashAttention), 8 heads x 64";
      const int heads = 8, D = 64;
      auto row = [&](int batch, int seq, bool held) {
        const size_t n = size_t(batch) * heads * seq * D;
        DeviceBuffer q(n * 2), k(n * 2), v(n * 2), out(n * 4);
        const long threads_total = long(heads) * seq;
        const dim3 grid(unsigned((threads_total + 127) / 128), unsigned(batch));
        const double sec = time_gpu(s, [&] {
          prefill_attention_kernel<D><<<grid, 128, 0, s>>>((const __nv_bfloat16*)q.p, (const __nv_bfloat16*)k.p, (const __nv_bfloat16*)v.p, seq, heads, (float*)out.p);
        }, t);
        const double flops = 4.0 * batch * heads * D * (double(seq) * (seq + 1) / 2);
        m.add_row({{"batch", batch}, {"seq", seq}, {"flops", flops}, {"achieved_flops_per_s", flops / sec}, {"time_s", sec}, {"held_out", held ? 1.0 : 0.0}});
      };
      for (double b : pow2(1, 4)) for (double q : pow2(256, quick ? 2048 : 8192)) row(int(b), int(q), false);
      row(3, 768, true);
      row(2, 1536, true);
      add(std::move(m));
    }
    for (const bool graph : {false, true}) {
      MeasurementTable m;
      m.family = graph ? "graph_replay_latency" : "launch_latency";
      for (double kn : pow2(1, 1024)) {
        const int kernels = int(kn);
        double sec = 0;
        if (!graph) {
          sec = time_gpu(s, [&] { for (int i = 0; i < kernels; ++i) empty_kernel<<<1, 1, 0, s>>>(); }, t);
        } else {
          cudaGraph_t g;
          cudaGraphExec_t ge;
          check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
          for (int i = 0; i < kernels; ++i) empty_kernel<<<1, 1, 0, s>>>();
          check(cudaStreamEndCapture(s, &g), "end capture");
          check(cudaGraphInstantiate(&ge, g, 0), "instantiate");
          sec = time_gpu(s, [&] { check(cudaGraphLaunch(ge, s), "graph launch"); }, t);
          cudaGraphExecDestroy(ge);
          cudaGraphDestroy(g);
        }
        m.add_row({{"kernels", double(kernels)}, {"seconds_per_kernel", sec / kernels}, {"time_s", sec}, {"held_out", 0}});
      }
      add(std::move(m));
    }
#ifdef AGENTSIM_HAVE_NCCL
    if (count > 1) nccl_tables(count, quick, t, add);
#endif
    cudaStreamDestroy(s);
    return f;
  }

 private:
#ifdef AGENTSIM_HAVE_NCCL
  template <class Add>
  void nccl_tables(int count, bool quick, const Timing& t, Add& add) {
    std::vector<ncclComm_t> comms(static_cast<size_t>(count));
    std::vector<int> devs(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) devs[size_t(i)] = i;
    check(ncclCommInitAll(comms.data(), count, devs.data()), "init");
    std::vector<cudaStream_t> streams(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      check(cudaSetDevice(i), "set device");
      check(cudaStreamCreate(&streams[size_t(i)]), "stream");
    }
    const double n = count;
    for (int kind = 0; kind < 3; ++kind) {
      MeasurementTable m;
      m.family = kind == 0 ? "nccl_all_reduce" : kind == 1 ? "nccl_all_gather" : "nccl_all_to_all";
      m.attributes["monotone"] = "size_bytes:+";
      m.attributes["gpus"] = std::to_string(count);
      for (double sz : pow2(4096, quick ? std::ldexp(1.0, 28) : std::ldexp(1.0, 30))) {
        std::vector<void*> send(static_cast<size_t>(count)), recv(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) {
          check(cudaSetDevice(i), "set device");
          check(cudaMalloc(&send[size_t(i)], size_t(sz)), "malloc");
          check(cudaMalloc(&recv[size_t(i)], size_t(sz)), "malloc");
        }
        const size_t elems = size_t(sz) / 4, chunk = elems / size_t(count);
        auto once = [&] {
          check(ncclGroupStart(), "group");
          for (int i = 0; i < count; ++i) {
            const size_t r = size_t(i);
            if (kind == 0) check(ncclAllReduce(send[r], recv[r], elems, ncclFloat, ncclSum, comms[r], streams[r]), "all-reduce");
            if (kind == 1) check(ncclAllGather(send[r], recv[r], chunk, ncclFloat, comms[r], streams[r]), "all-gather");
            if (kind == 2)
              for (int p = 0; p < count; ++p) {
                check(ncclSend((float*)send[r] + size_t(p) * chunk, chunk, ncclFloat, p, comms[r], streams[r]), "send");
                check(ncclRecv((float*)recv[r] + size_t(p) * chunk, chunk, ncclFloat, p, comms[r], streams[r]), "recv");
              }
          }
          check(ncclGroupEnd(), "group end");
        };
        auto sync = [&] { for (int i = 0; i < count; ++i) { cudaSetDevice(i); cudaStreamSynchronize(streams[size_t(i)]); } };
        once();
        sync();
        double best = 1e30;
        for (int r = 0; r < t.reps; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          once();
          sync();
          best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        for (int i = 0; i < count; ++i) {
          cudaSetDevice(i);
          cudaFree(send[size_t(i)]);
          cudaFree(recv[size_t(i)]);
        }
        const double bus = kind == 0 ? 2 * (n - 1) / n * sz : (n - 1) / n * sz;
        m.add_row({{"size_bytes", sz}, {"bytes", bus}, {"achieved_bytes_per_s", bus / best}, {"time_s", best}, {"held_out", 0}});
      }
      add(std::move(m));
    }
    for (int i = 0; i < count; ++i) ncclCommDestroy(comms[size_t(i)]);
    cudaSetDevice(0);
  }
#endif
};

}  // namespace

std::unique_ptr<Microbenchmarks> make_cuda_microbenchmarks() { return std::make_unique<CudaMicrobenchmarks>(); }

}  // namespace agentsim::calib
