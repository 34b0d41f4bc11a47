#include "experiments/run_codec.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/core/error.hpp"

namespace agentsim::exp {

namespace {

static_assert(std::is_trivially_copyable_v<metrics::Summary>);
static_assert(std::is_trivially_copyable_v<metrics::RequestRecord>);
static_assert(std::is_trivially_copyable_v<metrics::StepRecord>);
static_assert(std::is_trivially_copyable_v<RunPower>);

constexpr std::uint64_t kMagic = 0x61676e7473696d31ULL;  // "agntsim1"

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod<std::uint64_t>(s.size());
    out_ += s;
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    pod<std::uint64_t>(v.size());
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <class T>
  T pod() {
    T v;
    need(sizeof v);
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    need(n);
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = pod<std::uint64_t>();
    if (n > (in_.size() - at_) / sizeof(T)) throw core::Error("run buffer truncated");
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), in_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  void need(std::size_t n) const {
    if (in_.size() - at_ < n) throw core::Error("run buffer truncated");
  }
  const std::string& in_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_runs(const std::vector<RunResult>& runs) {
  Writer w;
  w.pod(kMagic);
  w.pod<std::uint64_t>(runs.size());
  for (const auto& r : runs) {
    w.pod(r.concurrency);
    w.pod(r.level);
    w.pod(r.summary);
    w.pod(r.kv_capacity_tokens);
    w.pod(r.turns_truncated);
    w.pod(r.events);
    w.str(r.id);
    w.str(r.system);
    w.str(r.deployment);
    w.pod(r.seed);
    w.str(r.skipped);
    w.pod(r.bisection);
    w.pod(r.power);
    w.vec(r.requests);
    w.vec(r.steps);
  }
  return w.take();
}

std::vector<RunResult> decode_runs(const std::string& bytes) {
  Reader in(bytes);
  if (in.pod<std::uint64_t>() != kMagic) throw core::Error("not an agentsim run buffer");
  const auto n = in.pod<std::uint64_t>();
  std::vector<RunResult> runs;
  for (std::uint64_t i = 0; i < n; ++i) {
    RunResult r;
    r.concurrency = in.pod<int>();
    r.level = in.pod<double>();
    r.summary = in.pod<metrics::Summary>();
    r.kv_capacity_tokens = in.pod<long long>();
    r.turns_truncated = in.pod<long long>();
    r.events = in.pod<unsigned long long>();
    r.id = in.str();
    r.system = in.str();
    r.deployment = in.str();
    r.seed = in.pod<std::uint64_t>();
    r.skipped = in.str();
    r.bisection = in.pod<bool>();
    r.power = in.pod<RunPower>();
    r.requests = in.vec<metrics::RequestRecord>();
    r.steps = in.vec<metrics::StepRecord>();
    runs.push_back(std::move(r));
  }
  if (!in.done()) throw core::Error("run buffer has trailing bytes");
  return runs;
}

}  // namespace agentsim::exp
