#pragma once
// One model replica with continuous batching: each step runs every decoding
// sequence (one token each, decode first) plus prefill chunks in FCFS order up
// to a token budget and a sequence cap. Admission needs free KV in HBM: the
// prompt's cached prefix is reused (loaded back from lower tiers at a cost) and
// the rest reserved up front (prompt + answer) or on demand (prompt, then one
// block at a time, preempting the newest sequence by recompute or swap when HBM
// runs out). With speculative decoding each decoding sequence verifies k drafts
// and emits the accepted ones plus one, drawn from its own stream. Every step is
// priced exactly; decode-only stretches without speculation can instead be
// fast-forwarded over verified affine pieces of their step cost (decode_segment.hpp).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "hwmodels/system.hpp"
#include "sim/core/min_tree.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/simulator.hpp"
#include "sim/metrics/recorder.hpp"
#include "sim/serving/context_wait.hpp"
#include "sim/serving/decode_segment.hpp"
#include "sim/serving/draft_costers.hpp"
#include "sim/serving/kv_manager.hpp"
#include "sim/serving/price_memo.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/serving/step_coster.hpp"
#include "workloads/model/model_spec.hpp"

namespace agentsim::serving {

enum class Admission { kReserveFull, kOnDemand };
enum class Preemption { kRecompute, kSwap };
// The names of `serving.admission` and `serving.preemption`.
inline constexpr core::NameTable<Admission, 2> kAdmissionNames = {{
    {"reserve", Admission::kReserveFull}, {"on_demand", Admission::kOnDemand}}};
inline constexpr core::NameTable<Preemption, 2> kPreemptionNames = {{
    {"recompute", Preemption::kRecompute}, {"swap", Preemption::kSwap}}};
enum class ReplicaRole { kUnified, kPrefill, kDecode };

struct ReplicaOptions {
  StepCostOptions cost;             // plan, efficiencies, step overhead
  long long max_batch_tokens = 8192; // new tokens per step (decode + prefill)
  int max_sequences = 256;          // sequences in the running batch
  long long kv_capacity_tokens = 0; // KV cache size in tokens (from HBM left after weights)
  // KV cache: granularity, lower tiers (capacity 0 = absent), retention. tiers[0] is
  // filled from kv_capacity_tokens when left empty.
  KvManagerOptions kv;
  Admission admission = Admission::kReserveFull;
  Preemption preemption = Preemption::kRecompute;
  bool overlap_load = true;         // load-back overlaps the step layer by layer (max, not sum)
  bool fast_forward = false;        // advance decode-only stretches in runs (decode_segment.hpp);
                                    // off while speculating (each step's tokens are drawn)
  std::uint64_t seed = 1;           // speculative acceptance: one stream per request from this
  std::vector<double> barriers_s;   // fast-forwarded runs never straddle these (measurement window)
  ReplicaRole role = ReplicaRole::kUnified;
  // Prefill chunks share a step with the decodes (true) or, when any prefill work is ready,
  // run in a step of their own while the decodes wait (false: SGLang's default scheduler).
  bool mixed_batches = true;
  // SGLang's --scheduler-recv-interval (SchedulerRecvSkipper): while the running batch decodes,
  // requests that arrived reach the scheduler only every this many decode steps (a speculative
  // verify step counts as one); after a step with prefill work, or when nothing runs, at the next
  // step boundary. 1 = at every step boundary (vLLM, TensorRT-LLM, SGLang's default).
  int recv_interval_steps = 1;
  // TensorRT-LLM's attention-DP balance and batch waiting (context_wait.hpp): new prompts held
  // back for some steps. Decode-only steps taken while a prompt waits are priced one by one.
  ContextWait context_wait;
};

// KV tokens that fit: (HBM of `tp` devices x mem_fraction - weights) / KV per token.
// Returns <= 0 when the weights alone do not fit.
long long kv_capacity_tokens(const wl::ModelSpec& model, const hw::System& system, int tp,
                             double mem_fraction);

class Replica : public RequestSink {
 public:
  // A prefill replica hands each request over here once its prompt is done.
  using HandoffFn = std::function<void(const Request&, const metrics::RequestRecord&, CompletionFn)>;

  Replica(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system,
          ReplicaOptions opt, metrics::Recorder& recorder, int id = 0);

  // Queues `r` at the current simulated time; `done` fires when it finishes.
  void submit(const Request& r, CompletionFn done) override;
  // Queues a request whose prompt KV arrives ready (disaggregated decode); `rec` carries
  // its arrival and first token.
  void submit_prefilled(const Request& r, const metrics::RequestRecord& rec, CompletionFn done);
  void set_handoff(HandoffFn fn) { handoff_ = std::move(fn); }

  // Queued: admitted to the scheduler's queue, or arrived and not yet received (recv interval).
  std::size_t waiting() const { return waiting_.size() + inbox_.size(); }
  std::size_t running() const { return running_.size(); }
  long long load() const { return static_cast<long long>(waiting() + running_.size()); }
  // Keeps `board`'s value at `slot` equal to load() from now on (least-loaded routing
  // without scanning every replica); null stops it. `board` must outlive the replica.
  void mirror_load(core::MinTree* board, std::size_t slot);
  // Prompt tokens still to compute (waiting and running), for KV-aware routing.
  long long pending_prefill_tokens() const { return pending_prefill_; }
  long long kv_used_tokens() const;
  const KvManager& kv() const { return *kv_; }
  int id() const { return id_; }

 private:
  struct Active {
    // Hot fields first: the per-step loops over the running batch read only these.
    long long prompt = 0;     // tokens in KV before decoding (input, + generated after recompute)
    long long prefilled = 0;  // of prompt: cached, transferred or computed
    long long generated = 0;
    long long swapped_tokens = 0;  // KV parked in host by a swap preemption
    // Prompt tokens [recompute_from, recompute_to) were in KV before a recompute preemption:
    // computing them again is work, not new input.
    long long recompute_from = 0, recompute_to = 0;
    Request req;
    bool ready = false;            // KV arrives complete (transfer): no prefill
    metrics::RequestRecord rec;
    CompletionFn done;
    KvHold hold;
    // keys_for(req), computed at the first admission attempt and kept while the
    // queue head is refused (moved into `hold` on admission).
    std::vector<BlockKey> keys;
    bool keys_ready = false;
    bool admitted = false;  // admitted at least once (a preemption sends it back to waiting)
    // Speculative acceptance draws (speculation on): keyed by the run seed and the request.
    core::RngStream spec_rng{0, "spec"};
  };
  struct Run {  // a fast-forwarded run in flight
    bool active = false;
    core::Ticks start = 0;
    long long i0 = 0, k = 0;
    core::EventId event{};
    metrics::StepRecord step;
  };

  // Seeds `a`'s acceptance stream from the run seed and its request (agent, turn, arrival).
  void seed_spec(Active& a) const;
  void enqueue(Active a);
  void kick();
  void interrupt();
  // Ends the run in flight after its step `j` (1-based, >= the step in progress), if shorter.
  void cut_run(long long j);
  // Counts finished steps towards the next receive (recv_interval_steps).
  void count_recv(long long decode_steps, bool prefill);
  // Moves the arrived requests into the scheduler's queue.
  void receive();
  void maybe_start_step();
  void open_step_record();
  bool ensure_decode_kv();
  void preempt_last();
  bool try_admit(Active& a, double& load_s);
  void end_step();
  void end_run();
  void retire_finished();
  // Steps the segment's composition lasts from now (completions, block growth, cap).
  long long segment_steps() const;
  // Of those k, the steps a run from `now` may take without straddling a barrier.
  long long run_steps(core::Ticks now, long long k) const;

  core::Simulator& sim_;
  ReplicaOptions opt_;
  metrics::Recorder& recorder_;
  int id_;
  // Prices steps of opt_.cost with the drafts each runs (totals only: no breakdown).
  DraftCosters costers_;
  // Prices of repeated op inputs across stepped steps (price_memo.hpp), one memo per draft count.
  std::vector<PriceMemo> memos_;
  int step_drafts_ = 0;  // drafts of the step being formed (the schedule at its running sequences)
  std::unique_ptr<KvManager> kv_;
  HandoffFn handoff_;
  core::MinTree* load_board_ = nullptr;  // mirror_load
  std::size_t load_slot_ = 0;
  void load_changed() {
    if (load_board_ != nullptr) load_board_->set(load_slot_, load());
  }
  bool busy_ = false;
  bool kick_pending_ = false;
  long long pending_prefill_ = 0;
  double pending_swap_out_s_ = 0;  // swap-out time charged to the step being built
  std::deque<Active> waiting_;
  std::deque<Active> inbox_;      // arrived, not yet received (recv_interval_steps > 1)
  long long recv_count_ = 0;      // decode steps since the last receive
  long long ctx_wait_count_ = 0;  // context_wait's counter (holds_prompts)
  long long run_decoding_ = 0;    // sequences decoding in the run in flight (context_wait's count)
  bool recv_due_ = false;         // the scheduler receives at this step boundary
  std::vector<Active> running_;  // in admission order
  std::vector<Active> leaving_;  // scratch of retire_finished
  DecodeSegment seg_;            // fast-forward's priced decode-only segment
  bool seg_valid_ = false;       // running set unchanged since seg_ was planned
  Run run_;
  // The step in flight (built by maybe_start_step, read by end_step).
  StepBatch batch_;
  std::vector<std::size_t> decode_slots_, prefill_slots_;
  std::vector<long long> chunks_;
  std::vector<long long> emitted_;  // tokens each decode slot emits at the step's end
  metrics::StepRecord step_;
};

}  // namespace agentsim::serving
