#include "calibration/cpu/cpu_microbenchmarks.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "calibration/cpu/attention_reference.hpp"

namespace agentsim::calib {
namespace {

// Keeps results alive so the optimiser cannot drop the measured work.
volatile double g_sink = 0;

struct Timing {
  double min_rep_s;  // each repetition loops the kernel at least this long
  int reps;          // repetitions; the fastest is kept
};

// Best seconds per call of `f` over the repetitions, after one warm-up call. The
// minimum, not the median: on a shared host, interference only ever adds time.
template <class F>
double time_per_call(F&& f, const Timing& t) {
  using clock = std::chrono::steady_clock;
  f();
  long iters = 1;
  for (;;) {
    const auto t0 = clock::now();
    for (long i = 0; i < iters; ++i) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s >= t.min_rep_s || iters > (1L << 30)) break;
    iters = s <= 0 ? iters * 16 : std::max(iters * 2, static_cast<long>(std::ceil(static_cast<double>(iters) * t.min_rep_s * 1.2 / s)));
  }
  std::vector<double> per_call;
  for (int r = 0; r < t.reps; ++r) {
    const auto t0 = clock::now();
    for (long i = 0; i < iters; ++i) f();
    per_call.push_back(std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(iters));
  }
  return *std::min_element(per_call.begin(), per_call.end());
}

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return "unknown";
}

std::vector<double> pow2_range(double lo, double hi) {
  std::vector<double> v;
  for (double x = lo; x <= hi; x *= 2) v.push_back(x);
  return v;
}

struct Shape3 {
  int a, b, c;
};

void gemm_row(MeasurementTable& t, int m, int n, int k, bool held_out, const Timing& timing) {
  Eigen::MatrixXf a = Eigen::MatrixXf::Constant(m, k, 0.5f);
  Eigen::MatrixXf b = Eigen::MatrixXf::Constant(k, n, 0.25f);
  Eigen::MatrixXf c(m, n);
  const double s = time_per_call([&] { c.noalias() = a * b; g_sink = g_sink + c(0, 0); }, timing);
  const double flops = 2.0 * m * n * k;
  t.add_row({{"m", m}, {"n", n}, {"k", k}, {"dtype_bits", 32}, {"flops", flops},
             {"achieved_flops_per_s", flops / s}, {"time_s", s}, {"held_out", held_out ? 1 : 0}});
}

MeasurementTable bench_gemm(bool quick, const Timing& timing) {
  MeasurementTable t;
  t.family = "gemm";
  // Efficiency grows with n and k (longer inner loops, fewer edge tiles). Not
  // with m on a CPU: Eigen runs m = 1 as a matrix-vector product, which beats
  // the blocked GEMM at m = 2..8.
  t.attributes["monotone"] = "n:+,k:+";
  const auto ms = pow2_range(1, quick ? 256 : 1024);
  const auto nks = pow2_range(128, quick ? 512 : 2048);
  for (double n : nks)
    for (double k : nks)
      for (double m : ms) gemm_row(t, int(m), int(n), int(k), false, timing);
  const std::vector<Shape3> held = quick ? std::vector<Shape3>{{3, 384, 384}, {12, 192, 384}, {48, 384, 192}, {96, 384, 384}, {192, 192, 192}}
                                         : std::vector<Shape3>{{3, 384, 384}, {12, 768, 384}, {48, 1536, 768}, {96, 384, 1536}, {384, 768, 768}, {768, 1536, 1536}};
  for (const auto& s : held) gemm_row(t, s.a, s.b, s.c, true, timing);
  return t;
}

void grouped_row(MeasurementTable& t, int groups, int m, int n, int k, bool held_out, const Timing& timing) {
  std::vector<Eigen::MatrixXf> a(groups, Eigen::MatrixXf::Constant(m, k, 0.5f));
  std::vector<Eigen::MatrixXf> w(groups, Eigen::MatrixXf::Constant(k, n, 0.25f));
  std::vector<Eigen::MatrixXf> c(groups, Eigen::MatrixXf(m, n));
  const double s = time_per_call(
      [&] {
        for (int g = 0; g < groups; ++g) c[g].noalias() = a[g] * w[g];
        g_sink = g_sink + c[0](0, 0);
      },
      timing);
  const double flops = 2.0 * groups * m * n * k;
  t.add_row({{"groups", groups}, {"m", m}, {"n", n}, {"k", k}, {"dtype_bits", 32}, {"flops", flops},
             {"achieved_flops_per_s", flops / s}, {"time_s", s}, {"held_out", held_out ? 1 : 0}});
}

MeasurementTable bench_grouped_gemm(bool quick, const Timing& timing) {
  MeasurementTable t;
  t.family = "grouped_gemm";
  t.attributes["monotone"] = "m:+";
  const int nk = quick ? 256 : 512;
  for (double g : pow2_range(1, 16))
    for (double m : pow2_range(1, 64)) grouped_row(t, int(g), int(m), nk, nk, false, timing);
  for (const auto& s : std::vector<Shape3>{{6, 8, 0}, {3, 32, 0}, {12, 2, 0}}) grouped_row(t, s.a, s.b, nk, nk, true, timing);
  return t;
}

void read_row(MeasurementTable& t, double size, bool held_out, const Timing& timing) {
  const std::size_t n = static_cast<std::size_t>(size) / sizeof(std::uint64_t);
  std::vector<std::uint64_t> buf(n, 3);
  const double s = time_per_call(
      [&] {
        std::uint64_t acc = 0;
        for (std::size_t i = 0; i < n; ++i) acc += buf[i];
        g_sink = g_sink + static_cast<double>(acc);
      },
      timing);
  const double bytes = static_cast<double>(n * sizeof(std::uint64_t));
  t.add_row({{"size_bytes", bytes}, {"bytes", bytes}, {"achieved_bytes_per_s", bytes / s}, {"time_s", s},
             {"held_out", held_out ? 1 : 0}});
}

void copy_row(MeasurementTable& t, double size, bool held_out, const Timing& timing) {
  const std::size_t n = static_cast<std::size_t>(size);
  std::vector<char> src(n, 1), dst(n, 0);
  const double s = time_per_call(
      [&] {
        std::memcpy(dst.data(), src.data(), n);
        g_sink = g_sink + dst[n / 2];
      },
      timing);
  const double bytes = 2.0 * static_cast<double>(n);
  t.add_row({{"size_bytes", static_cast<double>(n)}, {"bytes", bytes}, {"achieved_bytes_per_s", bytes / s},
             {"time_s", s}, {"held_out", held_out ? 1 : 0}});
}

template <class Row>
MeasurementTable bench_sizes(const std::string& family, bool quick, const Timing& timing, Row row) {
  MeasurementTable t;
  t.family = family;
  // Not monotone on a CPU: small buffers live in caches faster than DRAM.
  const double hi = quick ? std::ldexp(1.0, 26) : std::ldexp(1.0, 28);
  for (double s : pow2_range(4096, hi)) row(t, s, false, timing);
  for (double s : {3.0 * 4096, 3.0 * 65536, 3.0 * 1048576, 3.0 * 4194304}) row(t, s, true, timing);
  return t;
}

void decode_row(MeasurementTable& t, int batch, int context, bool held_out, const Timing& timing) {
  const PagedKv kv = make_paged_kv(batch, context, 4, 64, 16);
  std::vector<float> q(static_cast<std::size_t>(batch) * 4 * 64, 0.1f), out(q.size());
  const double s = time_per_call([&] { decode_attention(kv, q, out); g_sink = g_sink + out[0]; }, timing);
  const double bytes = decode_kv_bytes(kv);
  t.add_row({{"batch", batch}, {"context", context}, {"bytes", bytes}, {"achieved_bytes_per_s", bytes / s},
             {"time_s", s}, {"held_out", held_out ? 1 : 0}});
}

MeasurementTable bench_attention_decode(bool quick, const Timing& timing) {
  MeasurementTable t;
  t.family = "attention_decode";
  t.attributes["monotone"] = "";
  t.attributes["kernel"] = "reference fp32 online-softmax decode, 4 heads x 64, 16-token blocks scattered";
  for (double b : pow2_range(1, 8))
    for (double c : pow2_range(128, quick ? 2048 : 8192)) decode_row(t, int(b), int(c), false, timing);
  for (const auto& s : std::vector<Shape3>{{3, 384, 0}, {6, 1536, 0}, {2, 768, 0}}) decode_row(t, s.a, s.b, true, timing);
  return t;
}

void prefill_row(MeasurementTable& t, int batch, int seq, bool held_out, const Timing& timing) {
  const std::size_t n = static_cast<std::size_t>(batch) * 4 * seq * 64;
  std::vector<float> q(n, 0.1f), k(n, 0.2f), v(n, 0.3f), out(n);
  const double s = time_per_call([&] { prefill_attention(batch, 4, seq, 64, q, k, v, out); g_sink = g_sink + out[0]; }, timing);
  const double flops = prefill_flops(batch, 4, seq, 64);
  t.add_row({{"batch", batch}, {"seq", seq}, {"flops", flops}, {"achieved_flops_per_s", flops / s},
             {"time_s", s}, {"held_out", held_out ? 1 : 0}});
}

MeasurementTable bench_attention_prefill(bool quick, const Timing& timing) {
  MeasurementTable t;
  t.family = "attention_prefill";
  t.attributes["monotone"] = "seq:+";
  t.attributes["kernel"] = "reference fp32 Eigen attention, 4 heads x 64, full score matrix then causal mask";
  for (double b : pow2_range(1, 4))
    for (double s : pow2_range(64, quick ? 512 : 1024)) prefill_row(t, int(b), int(s), false, timing);
  for (const auto& s : std::vector<Shape3>{{3, 192, 0}, {2, 384, 0}}) prefill_row(t, s.a, s.b, true, timing);
  return t;
}

class CpuMicrobenchmarks final : public Microbenchmarks {
 public:
  std::string backend() const override { return "cpu"; }

  CalibrationFile run(const RunOptions& o) override {
    const Timing timing = o.quick ? Timing{0.002, 5} : Timing{0.02, 7};
    CalibrationFile f;
    f.attributes["backend"] = "cpu";
    f.attributes["device"] = cpuinfo_field("model name");
    f.attributes["driver"] = "none (Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                             std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
                             ", one thread)";
    f.attributes["clocks"] = "cpu MHz at start: " + cpuinfo_field("cpu MHz");
    f.attributes["date"] = utc_timestamp();
    f.attributes["command_line"] = o.command_line;
    f.attributes["host_threads"] = std::to_string(std::thread::hardware_concurrency());
    f.attributes["peak_method"] = "none: the fit takes each family's best measured rate as its peak";
    f.attributes["mode"] = o.quick ? "quick" : "full";
    auto add = [&](MeasurementTable t) {
      if (o.progress) o.progress(t.family + ": " + std::to_string(t.rows()) + " shapes");
      f.tables[t.family] = std::move(t);
    };
    add(bench_gemm(o.quick, timing));
    add(bench_grouped_gemm(o.quick, timing));
    add(bench_sizes("mem_read", o.quick, timing, read_row));
    add(bench_sizes("mem_copy", o.quick, timing, copy_row));
    add(bench_attention_decode(o.quick, timing));
    add(bench_attention_prefill(o.quick, timing));
    return f;
  }
};

}  // namespace

std::unique_ptr<Microbenchmarks> make_cpu_microbenchmarks() { return std::make_unique<CpuMicrobenchmarks>(); }

}  // namespace agentsim::calib
