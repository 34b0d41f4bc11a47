#include "experiments/run/run_codec.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/core/error.hpp"

namespace agentsim::exp {

namespace {

constexpr std::uint64_t kMagic = 0x61676e7473696d33ULL;  // "agntsim3": fields encoded one by one (steps and windows with recomputed tokens)

// Each struct is encoded field by field, never as raw memory: its padding bytes are
// indeterminate, and copying them would make equal runs encode to unequal bytes.
// The sizeof checks fail when a field is added, so the lists below get updated with it.
static_assert(sizeof(metrics::Summary) == 28 * sizeof(double), "update summary_fields");
static_assert(sizeof(metrics::RequestRecord) == 64, "update request_fields");
static_assert(sizeof(metrics::StepRecord) == 112, "update step_fields");
static_assert(sizeof(RunPower) == 80, "update power_fields");

template <class S, class F>
void summary_fields(S& s, F&& f) {
  f(s.window_s), f(s.requests), f(s.rejected), f(s.output_tok_s), f(s.input_tok_s), f(s.computed_input_tok_s);
  f(s.recomputed_input_tok_s);
  f(s.total_tok_s), f(s.agent_output_tok_s_p50), f(s.agent_output_tok_s_p10), f(s.ttft_s_p50), f(s.ttft_s_p90);
  f(s.ttft_s_p99), f(s.itl_s_mean), f(s.steps), f(s.mean_batch_sequences), f(s.prefix_hit_rate), f(s.hit_rate_hbm);
  f(s.hit_rate_host), f(s.hit_rate_ssd), f(s.hit_rate_remote), f(s.evictions), f(s.bytes_loaded), f(s.bytes_stored);
  f(s.preemptions), f(s.kv_transfer_bytes), f(s.kv_occupancy_mean), f(s.kv_occupancy_peak);
}
template <class S, class F>
void request_fields(S& q, F&& f) {
  f(q.agent), f(q.input_tokens), f(q.cached_tokens), f(q.output_tokens), f(q.arrival_s), f(q.first_token_s);
  f(q.last_token_s), f(q.rejected);
}
template <class S, class F>
void step_fields(S& s, F&& f) {
  f(s.replica), f(s.start_s), f(s.end_s), f(s.decode_tokens), f(s.prefill_tokens), f(s.recomputed_tokens);
  f(s.cached_tokens);
  f(s.sampled_tokens), f(s.batch_sequences), f(s.steps), f(s.kv_used_fraction), f(s.compute_s), f(s.memory_s);
  f(s.comm_s), f(s.overhead_s);
}
template <class S, class F>
void power_fields(S& p, F&& f) {
  f(p.systems), f(p.accelerators), f(p.accelerators_total), f(p.power_w), f(p.accelerators_w), f(p.provisioned_w);
  f(p.compute_s), f(p.memory_s), f(p.comm_s), f(p.overhead_s), f(p.busy_s);
}

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_arithmetic_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod<std::uint64_t>(s.size());
    out_ += s;
  }
  template <class T, class Fields>
  void obj(const T& v, Fields fields) {
    fields(v, [this](const auto& x) { this->pod(x); });
  }
  template <class T, class Fields>
  void vec(const std::vector<T>& v, Fields fields) {
    pod<std::uint64_t>(v.size());
    for (const auto& x : v) obj(x, fields);
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
    static_assert(std::is_arithmetic_v<T>);
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
  template <class T, class Fields>
  T obj(Fields fields) {
    T v{};
    fields(v, [this](auto& x) { x = this->pod<std::remove_reference_t<decltype(x)>>(); });
    return v;
  }
  // `min_item_bytes` bounds the count by what is left, so a corrupt count cannot allocate wildly.
  template <class T, class Fields>
  std::vector<T> vec(Fields fields, std::size_t min_item_bytes) {
    const auto n = pod<std::uint64_t>();
    if (n > (in_.size() - at_) / min_item_bytes) throw core::Error("run buffer truncated");
    std::vector<T> v;
    v.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) v.push_back(obj<T>(fields));
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

// Encoded size of one record: the sum of its fields' sizes (no padding).
template <class T, class Fields>
std::size_t encoded_bytes(Fields fields) {
  std::size_t n = 0;
  T v{};
  fields(v, [&n](const auto& x) { n += sizeof x; });
  return n;
}

}  // namespace

std::string encode_runs(const std::vector<RunResult>& runs) {
  Writer w;
  w.pod(kMagic);
  w.pod<std::uint64_t>(runs.size());
  for (const auto& r : runs) {
    w.pod(r.concurrency);
    w.pod(r.level);
    w.obj(r.summary, [](const auto& v, auto f) { summary_fields(v, f); });
    w.pod(r.kv_capacity_tokens);
    w.pod(r.turns_truncated);
    w.pod(r.events);
    w.str(r.id);
    w.str(r.system);
    w.str(r.deployment);
    w.pod(r.seed);
    w.str(r.skipped);
    w.pod(r.bisection);
    w.obj(r.power, [](const auto& v, auto f) { power_fields(v, f); });
    w.vec(r.requests, [](const auto& v, auto f) { request_fields(v, f); });
    w.vec(r.steps, [](const auto& v, auto f) { step_fields(v, f); });
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
    r.summary = in.obj<metrics::Summary>([](auto& v, auto f) { summary_fields(v, f); });
    r.kv_capacity_tokens = in.pod<long long>();
    r.turns_truncated = in.pod<long long>();
    r.events = in.pod<unsigned long long>();
    r.id = in.str();
    r.system = in.str();
    r.deployment = in.str();
    r.seed = in.pod<std::uint64_t>();
    r.skipped = in.str();
    r.bisection = in.pod<bool>();
    r.power = in.obj<RunPower>([](auto& v, auto f) { power_fields(v, f); });
    const auto req = [](auto& v, auto f) { request_fields(v, f); };
    const auto stp = [](auto& v, auto f) { step_fields(v, f); };
    r.requests = in.vec<metrics::RequestRecord>(req, encoded_bytes<metrics::RequestRecord>(req));
    r.steps = in.vec<metrics::StepRecord>(stp, encoded_bytes<metrics::StepRecord>(stp));
    runs.push_back(std::move(r));
  }
  if (!in.done()) throw core::Error("run buffer has trailing bytes");
  return runs;
}

namespace {

constexpr std::uint64_t kPodMagic = 0x61676e74706f6432ULL;  // "agntpod2" (finished_at_s added)

template <class S, class F>
void window_fields(S& w, F&& f) {
  f(w.start_s), f(w.end_s), f(w.steps), f(w.out_tokens), f(w.prefill_tokens), f(w.recomputed_tokens);
  f(w.cached_tokens), f(w.batch_seq);
  f(w.occupancy), f(w.occupancy_peak), f(w.requests), f(w.rejected), f(w.itl_sum_s), f(w.itl_n);
}
template <class S, class F>
void cache_fields(S& c, F&& f) {
  f(c.lookup_tokens), f(c.hit_tokens), f(c.preemptions), f(c.kv_transfers), f(c.kv_transfer_bytes), f(c.kv_transfer_s);
}
template <class S, class F>
void tier_fields(S& t, F&& f) {
  f(t.hit_tokens), f(t.evictions), f(t.bytes_loaded), f(t.bytes_stored);
}
struct Sample {
  double v = 0;
};
template <class S, class F>
void sample_fields(S& s, F&& f) {
  f(s.v);
}

}  // namespace

std::string encode_pod(const PodOutcome& pod) {
  Writer w;
  w.pod(kPodMagic);
  w.pod(pod.turns_truncated);
  w.pod(pod.events);
  w.pod(pod.replicas);
  w.pod(pod.finished_at_s);
  w.obj(pod.counters, [](const auto& v, auto f) { cache_fields(v, f); });
  w.pod<std::uint64_t>(pod.counters.tiers.size());
  for (const auto& t : pod.counters.tiers) {
    w.str(t.name);
    w.str(t.link);
    w.obj(t, [](const auto& v, auto f) { tier_fields(v, f); });
  }
  const metrics::WindowTotals* window = pod.recorder.streamed();
  w.pod(window != nullptr);
  if (window) {
    w.obj(*window, [](const auto& v, auto f) { window_fields(v, f); });
    for (const auto* samples : {&window->speed_tok_s, &window->ttft_s}) {
      w.pod<std::uint64_t>(samples->size());
      for (const double x : *samples) w.pod(x);
    }
  } else {
    w.vec(pod.recorder.requests(), [](const auto& v, auto f) { request_fields(v, f); });
    w.vec(pod.recorder.steps(), [](const auto& v, auto f) { step_fields(v, f); });
  }
  return w.take();
}

PodOutcome decode_pod(const std::string& bytes) {
  Reader in(bytes);
  if (in.pod<std::uint64_t>() != kPodMagic) throw core::Error("not an agentsim pod buffer");
  PodOutcome pod;
  pod.turns_truncated = in.pod<long long>();
  pod.events = in.pod<unsigned long long>();
  pod.replicas = in.pod<int>();
  pod.finished_at_s = in.pod<double>();
  pod.counters = in.obj<metrics::CacheCounters>([](auto& v, auto f) { cache_fields(v, f); });
  const auto tiers = in.pod<std::uint64_t>();
  if (tiers > 64) throw core::Error("pod buffer malformed");
  for (std::uint64_t i = 0; i < tiers; ++i) {
    metrics::TierCounters t;
    t.name = in.str();
    t.link = in.str();
    const auto c = in.obj<metrics::TierCounters>([](auto& v, auto f) { tier_fields(v, f); });
    t.hit_tokens = c.hit_tokens, t.evictions = c.evictions, t.bytes_loaded = c.bytes_loaded;
    t.bytes_stored = c.bytes_stored;
    pod.counters.tiers.push_back(std::move(t));
  }
  if (in.pod<bool>()) {
    auto window = in.obj<metrics::WindowTotals>([](auto& v, auto f) { window_fields(v, f); });
    const auto smp = [](auto& v, auto f) { sample_fields(v, f); };
    for (auto* samples : {&window.speed_tok_s, &window.ttft_s}) {
      for (const Sample& x : in.vec<Sample>(smp, sizeof(double))) samples->push_back(x.v);
    }
    pod.recorder = metrics::Recorder::streaming(std::move(window));
  } else {
    const auto req = [](auto& v, auto f) { request_fields(v, f); };
    const auto stp = [](auto& v, auto f) { step_fields(v, f); };
    for (const auto& q : in.vec<metrics::RequestRecord>(req, encoded_bytes<metrics::RequestRecord>(req))) {
      pod.recorder.add(q);
    }
    for (const auto& st : in.vec<metrics::StepRecord>(stp, encoded_bytes<metrics::StepRecord>(stp))) {
      pod.recorder.add(st);
    }
  }
  if (!in.done()) throw core::Error("pod buffer has trailing bytes");
  return pod;
}

}  // namespace agentsim::exp
