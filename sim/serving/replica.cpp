#include "sim/serving/replica.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace agentsim::serving {

namespace {
// Steps a segment plans at most (its tick table: 8 bytes a step); longer runs re-plan.
constexpr long long kMaxRunSteps = 1LL << 15;
}  // namespace

long long kv_capacity_tokens(const wl::ModelSpec& model, const hw::System& system, int tp,
                             double mem_fraction) {
  const double usable = system.accelerator.hbm_bytes * tp * mem_fraction - model.weight_bytes();
  return static_cast<long long>(std::floor(usable / model.kv_bytes_per_token()));
}

Replica::Replica(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system,
                 ReplicaOptions opt, metrics::Recorder& recorder, int id)
    : sim_(sim), opt_(std::move(opt)), recorder_(recorder), id_(id),
      costers_(model, system, opt_.cost), memos_(static_cast<std::size_t>(costers_.own_drafts()) + 1) {
  KvManagerOptions ko = opt_.kv;
  if (ko.tiers.empty()) ko.tiers.push_back(KvTierSpec{"hbm", "local", 0, 0, 0});
  ko.tiers[0].capacity_tokens = opt_.kv_capacity_tokens;
  if (ko.kv_bytes_per_token <= 0) ko.kv_bytes_per_token = model.kv_bytes_per_token();
  kv_ = std::make_unique<KvManager>(sim, std::move(ko), [this] {
    interrupt();
    kick();
  });
}

void Replica::mirror_load(core::MinTree* board, std::size_t slot) {
  load_board_ = board;
  load_slot_ = slot;
  load_changed();
}

long long Replica::kv_used_tokens() const {
  return static_cast<long long>(std::llround(kv_->used_fraction() * static_cast<double>(kv_->capacity_units()))) *
         kv_->unit_tokens();
}

void Replica::seed_spec(Active& a) const {
  if (!opt_.cost.spec.enabled()) return;
  // The request's identity, not its replica or batch: the same draws wherever it runs.
  std::uint64_t h = opt_.seed;
  const std::uint64_t parts[] = {static_cast<std::uint64_t>(static_cast<std::int64_t>(a.req.agent)),
                                 static_cast<std::uint64_t>(static_cast<std::int64_t>(a.req.turn.session)),
                                 static_cast<std::uint64_t>(static_cast<std::int64_t>(a.req.turn.turn)),
                                 std::bit_cast<std::uint64_t>(a.rec.arrival_s)};
  for (std::uint64_t v : parts) h = core::derive_seed(h ^ (v * 0x9e3779b97f4a7c15ULL), "spec/request");
  a.spec_rng = core::RngStream(h, "spec");
}

void Replica::submit(const Request& r, CompletionFn done) {
  Active a;
  a.req = r;
  a.done = std::move(done);
  a.rec.agent = r.agent;
  a.rec.input_tokens = r.input_tokens;
  a.rec.output_tokens = r.output_tokens;
  a.rec.arrival_s = r.sent_s >= 0 ? r.sent_s : sim_.now_s();
  a.prompt = r.input_tokens;
  seed_spec(a);
  if (r.warm_prefix_tokens > 0) kv_->warm(r, r.warm_prefix_tokens);
  const long long need = opt_.role == ReplicaRole::kPrefill ? r.input_tokens : r.input_tokens + r.output_tokens;
  if (kv_->units_for(need) > kv_->capacity_units()) {
    // It could never be admitted: reject now rather than block the queue forever.
    a.rec.rejected = true;
    recorder_.add(a.rec);
    a.done(a.rec);
    return;
  }
  enqueue(std::move(a));
}

void Replica::submit_prefilled(const Request& r, const metrics::RequestRecord& rec, CompletionFn done) {
  Active a;
  a.req = r;
  a.done = std::move(done);
  a.rec = rec;
  a.prompt = r.input_tokens;
  a.prefilled = a.prompt;
  a.generated = 1;
  a.ready = true;
  seed_spec(a);
  if (kv_->units_for(r.input_tokens + r.output_tokens) > kv_->capacity_units()) {
    a.rec.rejected = true;
    recorder_.add(a.rec);
    a.done(a.rec);
    return;
  }
  enqueue(std::move(a));
}

void Replica::enqueue(Active a) {
  pending_prefill_ += a.prompt - a.prefilled;
  const long long n = opt_.recv_interval_steps;
  if (n > 1 && (busy_ || (kick_pending_ && !running_.empty()))) {
    // The scheduler is running a batch (or ending one): the request waits for its next
    // receive, and a run in flight ends there (the first step end at a multiple of n decode
    // steps). An idle scheduler receives at once.
    inbox_.push_back(std::move(a));
    load_changed();
    if (run_.active) {
      const long long j = seg_.steps_covering(run_.i0, run_.k, sim_.now() - run_.start);
      cut_run(j + (n - (recv_count_ + j) % n) % n);
    }
    return;
  }
  waiting_.push_back(std::move(a));
  load_changed();
  interrupt();
  kick();
}

void Replica::receive() {
  for (Active& a : inbox_) waiting_.push_back(std::move(a));
  inbox_.clear();
}

void Replica::count_recv(long long decode_steps, bool prefill) {
  const long long n = opt_.recv_interval_steps;
  if (n <= 1) return;
  if (prefill) {  // a prefill step weighs more than any interval: receive next
    recv_count_ = 0;
    recv_due_ = true;
    return;
  }
  recv_count_ += decode_steps;
  // Runs never pass a receive with requests waiting (enqueue cuts them, maybe_start_step caps
  // them): only the run's last step can be the one that receives.
  recv_due_ = recv_count_ % n == 0;
  recv_count_ %= n;
}

void Replica::kick() {
  if (busy_ || kick_pending_) return;
  // Start after every other event of this instant, so simultaneous arrivals share a step
  // whatever order they were scheduled in (stepping and fast-forward then agree).
  kick_pending_ = true;
  sim_.after(0, [this] {
    kick_pending_ = false;
    maybe_start_step();
  }, /*priority=*/1);
}

void Replica::interrupt() {
  if (!run_.active) return;
  // The step in progress finishes; the rest of the run is given up.
  cut_run(seg_.steps_covering(run_.i0, run_.k, sim_.now() - run_.start));
}

void Replica::cut_run(long long j) {
  if (j >= run_.k) return;
  sim_.cancel(run_.event);
  run_.k = j;
  run_.event = sim_.at(run_.start + seg_.run_ticks(run_.i0, j), [this] { end_run(); });
  const StepParts parts = seg_.mean_parts(run_.i0, j);
  run_.step.compute_s = parts.compute_s;
  run_.step.memory_s = parts.memory_s;
  run_.step.comm_s = parts.comm_s;
  run_.step.overhead_s = parts.overhead_s;
}

void Replica::preempt_last() {
  Active a = std::move(running_.back());
  running_.pop_back();
  seg_valid_ = false;
  kv_->count_preemption();
  pending_prefill_ -= a.prompt - a.prefilled;
  // Mid-prefill, only the prompt's computed part (and its cached prefix) holds KV.
  kv_->drop(a.hold, a.prefilled == a.prompt ? -1 : a.prefilled);
  if (opt_.preemption == Preemption::kSwap && kv_->has_tier(1) && a.prefilled == a.prompt && a.generated > 0) {
    a.swapped_tokens = a.req.input_tokens + a.generated - 1;
    a.prompt = a.swapped_tokens;
    a.prefilled = a.prompt;
    kv_->count_swap(1, a.swapped_tokens, 0);
    pending_swap_out_s_ += kv_->move_s(1, a.swapped_tokens);
  } else {
    // What was in KV: after the first token, the whole context (input, then generated); during
    // the prefill, the prompt from where its computation began (cached before) to where it got.
    a.recompute_from = a.generated > 0 ? 0 : a.rec.cached_tokens;
    a.recompute_to = std::max(a.recompute_to, a.prefilled == a.prompt ? a.req.input_tokens + std::max(0LL, a.generated - 1)
                                                                       : a.prefilled);
    a.prompt = a.req.input_tokens + std::max(0LL, a.generated - 1);
    a.prefilled = 0;
    a.ready = false;
    pending_prefill_ += a.prompt;
  }
  waiting_.push_front(std::move(a));
}

bool Replica::ensure_decode_kv() {
  if (opt_.admission != Admission::kOnDemand) return true;
  const long long drafts = opt_.cost.spec.draft_tokens;  // verified drafts write KV too
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (running_[i].prefilled != running_[i].prompt) continue;
    const Request& q = running_[i].req;
    const long long tokens = q.input_tokens + running_[i].generated;
    const long long need = kv_->units_for(drafts > 0 ? std::min(tokens + drafts, q.input_tokens + q.output_tokens) : tokens);
    while (running_[i].hold.units() < need) {
      if (kv_->grow(running_[i].hold)) continue;
      const bool self = i + 1 == running_.size();
      preempt_last();
      if (self) return false;
    }
  }
  return true;
}

bool Replica::try_admit(Active& a, double& load_s) {
  const bool reserve = opt_.admission == Admission::kReserveFull && opt_.role != ReplicaRole::kPrefill;
  if (a.ready || a.swapped_tokens > 0) {
    const long long total = reserve ? a.req.input_tokens + a.req.output_tokens : a.prompt + 1;
    if (!kv_->admit_anonymous(total, a.hold)) return false;
    if (a.swapped_tokens > 0) {
      load_s += kv_->move_s(1, a.swapped_tokens);
      kv_->count_swap(1, 0, a.swapped_tokens);
      a.swapped_tokens = 0;
    }
    return true;
  }
  const long long total = reserve ? a.req.input_tokens + a.req.output_tokens : a.prompt;
  if (!a.keys_ready) {
    a.keys = kv_->keys_for(a.req);
    a.keys_ready = true;
  }
  auto got = kv_->admit(a.req, a.keys, total, a.hold);
  if (!got) return false;
  a.keys_ready = false;  // moved into the hold
  a.prefilled = got->cached_tokens;
  pending_prefill_ -= got->cached_tokens;
  // The prompt tokens the request never computes. Readmitted after a recompute preemption, it
  // finds the blocks it computed itself before (so it does not compute them again), but those
  // are its work, not cache hits: what it never computed is the least any admission found.
  if (a.generated == 0) {
    a.rec.cached_tokens = a.admitted ? std::min(a.rec.cached_tokens, got->cached_tokens) : got->cached_tokens;
  }
  a.admitted = true;
  load_s += got->load_s;
  return true;
}

long long Replica::segment_steps() const {
  long long k = kMaxRunSteps;
  for (const Active& a : running_) {
    k = std::min(k, a.req.output_tokens - a.generated);
    if (opt_.admission == Admission::kOnDemand) {
      k = std::min(k, a.hold.units() * kv_->unit_tokens() - (a.req.input_tokens + a.generated) + 1);
    }
  }
  return std::max(1LL, k);
}

long long Replica::run_steps(core::Ticks now, long long k) const {
  if (k < 2) return k;
  const long long i0 = seg_.next_step;
  // Every step of a run must fall on the same side of each barrier (windows count step ends).
  for (double b : opt_.barriers_s) {
    if (core::to_seconds(now + seg_.step_ticks(i0)) >= b) continue;
    long long lo = 1, hi = k;  // largest j with every end < b
    while (lo < hi) {
      const long long mid = lo + (hi - lo + 1) / 2;
      if (core::to_seconds(now + seg_.run_ticks(i0, mid)) < b) lo = mid; else hi = mid - 1;
    }
    k = lo;
    break;
  }
  return k;
}

// The record of the step just batched, before it is priced: tokens, sequences, KV use.
void Replica::open_step_record() {
  const StepBatch& batch = batch_;
  const SpecDecodeOptions& spec = costers_.spec(step_drafts_);
  const long long verify_tokens = spec.draft_tokens + 1;
  metrics::StepRecord& step = step_;
  step = metrics::StepRecord{};
  step.replica = id_;
  step.start_s = sim_.now_s();
  step.decode_tokens = static_cast<int>(verify_tokens * static_cast<long long>(batch.decodes.size()));
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    const Active& a = running_[prefill_slots_[k]];
    step.prefill_tokens += chunks_[k];
    const long long lo = std::max(a.prefilled, a.recompute_from), hi = std::min(a.prefilled + chunks_[k], a.recompute_to);
    if (hi > lo) step.recomputed_tokens += hi - lo;
  }
  step.sampled_tokens = static_cast<int>(batch.sampled_tokens());
  if (spec.enabled()) {
    long long emitted = 0;
    for (long long n : emitted_) emitted += n;
    step.sampled_tokens += static_cast<int>(emitted - static_cast<long long>(batch.decodes.size()));
  }
  step.batch_sequences = static_cast<int>(batch.decodes.size() + batch.prefills.size());
  step.kv_used_fraction = kv_->used_fraction();
}

void Replica::maybe_start_step() {
  if (busy_) return;
  // The scheduler's receive: due after the step that completed the interval (or a prefill
  // step), and at once when it has no batch (its idle loop spins through the interval).
  if (!inbox_.empty() && (recv_due_ || running_.empty())) receive();
  recv_due_ = false;
  pending_swap_out_s_ = 0;
  ensure_decode_kv();

  // The step's buffers are members, reused step after step (one step in flight at a time).
  StepBatch& batch = batch_;
  std::vector<std::size_t>& decode_slots = decode_slots_;
  std::vector<std::size_t>& prefill_slots = prefill_slots_;
  std::vector<long long>& chunks = chunks_;
  batch.decodes.clear();
  batch.prefills.clear();
  decode_slots.clear();
  prefill_slots.clear();
  chunks.clear();
  emitted_.clear();
  // Speculation: each decoding sequence verifies its k drafts (k + 1 tokens of the budget)
  // and emits the accepted ones plus one, drawn now from its own stream; a draft schedule sets
  // k by the sequences running as the step is formed.
  step_drafts_ = costers_.drafts(static_cast<long long>(running_.size()));
  const SpecDecodeOptions& spec = costers_.spec(step_drafts_);
  const long long verify_tokens = spec.draft_tokens + 1;
  auto add_decode = [&](std::size_t slot) {
    Active& a = running_[slot];
    batch.decodes.push_back(DecodeItem{a.req.input_tokens + a.generated - 1});
    decode_slots.push_back(slot);
    // Capped by the tokens the answer still needs (one at least, as without speculation).
    const long long drawn = spec.enabled() ? 1 + draw_accepted(a.spec_rng, spec) : 1;
    emitted_.push_back(std::max(1LL, std::min(drawn, a.req.output_tokens - a.generated)));
  };
  // Without mixed batches, prefill work goes first in a step of its own and the decodes join
  // only a step with none (SGLang runs a prefill batch whenever one can be formed).
  const bool decodes_first = opt_.mixed_batches;
  if (decodes_first) {
    for (std::size_t i = 0; i < running_.size(); ++i) {
      if (running_[i].prefilled == running_[i].prompt) add_decode(i);
    }
  }
  long long budget = opt_.max_batch_tokens - verify_tokens * static_cast<long long>(batch.decodes.size());
  auto add_prefill = [&](std::size_t slot) {
    Active& a = running_[slot];
    const long long chunk = std::min(budget, a.prompt - a.prefilled);
    batch.prefills.push_back(PrefillChunk{chunk, a.prefilled, a.prefilled + chunk == a.prompt});
    prefill_slots.push_back(slot);
    chunks.push_back(chunk);
    budget -= chunk;
  };
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    if (running_[i].prefilled < running_[i].prompt) add_prefill(i);
  }
  // TensorRT-LLM's context waits may hold the waiting prompts back this step.
  bool hold = false;
  if (opt_.context_wait.active()) {
    long long decoding = 0, prompt_tokens = 0;
    for (const Active& a : running_) decoding += a.prefilled == a.prompt;
    for (const Active& a : waiting_) {
      if (prompt_tokens >= budget) break;
      prompt_tokens += a.prompt - a.prefilled;
    }
    hold = holds_prompts(opt_.context_wait, ctx_wait_count_, static_cast<long long>(waiting_.size()),
                         std::min(prompt_tokens, std::max(0LL, budget)), decoding, verify_tokens * decoding);
  }
  // Admit FCFS; the head of the queue blocks those behind it (no overtaking).
  double load_s = 0;
  while (!waiting_.empty() && static_cast<int>(running_.size()) < opt_.max_sequences) {
    Active& head = waiting_.front();
    const bool needs_prefill = !head.ready && head.swapped_tokens == 0;
    if (needs_prefill && (budget <= 0 || hold)) break;
    // A disaggregated request's first token reaches the client from its decode replica, when
    // that replica takes it into its batch: the KV transfer and any wait for a free slot are
    // in its TTFT (the prefill replica's first-token time is where its computation ended).
    const bool handed_over = opt_.role == ReplicaRole::kDecode && head.ready && !head.admitted;
    if (!try_admit(head, load_s)) break;
    if (handed_over) head.rec.first_token_s = sim_.now_s();
    running_.push_back(std::move(head));
    waiting_.pop_front();
    seg_valid_ = false;
    const std::size_t slot = running_.size() - 1;
    if (running_[slot].prefilled != running_[slot].prompt) {
      add_prefill(slot);
    } else if (decodes_first) {
      add_decode(slot);
    }
  }
  if (!decodes_first && batch.prefills.empty()) {
    for (std::size_t i = 0; i < running_.size(); ++i) {
      if (running_[i].prefilled == running_[i].prompt) add_decode(i);
    }
  }
  if (batch.empty()) {
    if (!inbox_.empty()) {  // nothing to run: the idle scheduler receives
      receive();
      kick();
    }
    return;
  }

  open_step_record();
  metrics::StepRecord& step = step_;

  core::Ticks ticks = 0;
  // Stepping prices every step exactly; fast-forward prices a decode-only segment's
  // steps from its verified affine pieces (decode_segment.hpp).
  // With speculation every step's tokens are drawn: each is priced exactly (docs/serving.md).
  // With context waits a run never starts while a prompt waits: each held step decides anew.
  const bool segment_step = opt_.fast_forward && !opt_.cost.spec.enabled() && batch.prefills.empty() && load_s == 0 &&
                            pending_swap_out_s_ == 0 && (waiting_.empty() || !opt_.context_wait.active());
  if (segment_step) {
    const long long k = segment_steps();
    if (!seg_valid_ || seg_.next_step + k > seg_.steps()) {
      seg_.plan(costers_.coster(step_drafts_), batch, k);
      seg_valid_ = true;
    }
    long long run = run_steps(sim_.now(), k);
    // Requests waiting to be received: the run ends at the next receive.
    if (!inbox_.empty()) run = std::min(run, opt_.recv_interval_steps - recv_count_);
    // The record's parts: the mean over its steps (accounting multiplies by `steps`).
    const StepParts parts = seg_.mean_parts(seg_.next_step, std::max(1LL, run));
    step.compute_s = parts.compute_s;
    step.memory_s = parts.memory_s;
    step.comm_s = parts.comm_s;
    step.overhead_s = parts.overhead_s;
    if (run >= 2) {
      busy_ = true;
      run_decoding_ = static_cast<long long>(batch.decodes.size());
      run_.active = true;
      run_.start = sim_.now();
      run_.i0 = seg_.next_step;
      run_.k = run;
      run_.step = step;
      run_.event = sim_.at(run_.start + seg_.run_ticks(run_.i0, run), [this] { end_run(); });
      return;
    }
    ticks = seg_.step_ticks(seg_.next_step);
    ++seg_.next_step;
  } else {
    seg_valid_ = false;
    const StepCost cost =
        costers_.coster(step_drafts_).price(batch, memos_[static_cast<std::size_t>(step_drafts_)]);
    double t = opt_.overlap_load ? std::max(cost.total_s, load_s) : cost.total_s + load_s;
    t += pending_swap_out_s_;
    step.compute_s = cost.compute_s;
    step.memory_s = cost.memory_s;
    step.comm_s = cost.comm_latency_s + cost.comm_transfer_s;
    step.overhead_s = cost.overhead_s + (t - cost.total_s);
    ticks = core::to_ticks(t);
  }

  busy_ = true;
  sim_.after(ticks, [this] { end_step(); });
}

void Replica::end_step() {
  const std::vector<std::size_t>& prefill_slots = prefill_slots_;
  const std::vector<long long>& chunks = chunks_;
  const std::vector<std::size_t>& decode_slots = decode_slots_;
  metrics::StepRecord& step = step_;
  const double now = sim_.now_s();
  step.end_s = now;
  for (std::size_t k = 0; k < prefill_slots.size(); ++k) {
    Active& a = running_[prefill_slots[k]];
    a.prefilled += chunks[k];
    pending_prefill_ -= chunks[k];
    if (a.prefilled == a.prompt) {
      if (a.generated == 0) {
        a.rec.first_token_s = now;
        step.cached_tokens += a.rec.cached_tokens;
      }
      ++a.generated;
      a.rec.last_token_s = now;
    }
  }
  for (std::size_t k = 0; k < decode_slots.size(); ++k) {
    Active& a = running_[decode_slots[k]];
    a.generated += emitted_[k];
    a.rec.last_token_s = now;
  }
  recorder_.add(step);
  count_recv(1, !prefill_slots.empty());
  busy_ = false;
  retire_finished();
  kick();
}

void Replica::end_run() {
  const double now = sim_.now_s();
  run_.active = false;
  for (Active& a : running_) {
    a.generated += run_.k;
    a.rec.last_token_s = now;
  }
  seg_.next_step += run_.k;
  run_.step.steps = static_cast<int>(run_.k);
  run_.step.end_s = now;
  recorder_.add(run_.step);
  count_recv(run_.k, false);
  // The run's first step counted when it was built; its other steps count here.
  ctx_wait_count_ = counter_after_idle_steps(opt_.context_wait, ctx_wait_count_, run_.k - 1, run_decoding_);
  busy_ = false;
  retire_finished();
  kick();
}

void Replica::retire_finished() {
  auto leaves = [this](const Active& a) {
    return a.prefilled == a.prompt && (a.generated >= a.req.output_tokens || opt_.role == ReplicaRole::kPrefill);
  };
  auto first = std::find_if(running_.begin(), running_.end(), leaves);
  if (first == running_.end()) return;
  // Compact in place, keeping the admission order of the rest.
  std::vector<Active>& leaving = leaving_;
  leaving.clear();
  auto out = first;
  for (auto it = first; it != running_.end(); ++it) {
    if (leaves(*it)) {
      kv_->finish(it->req, it->hold);
      leaving.push_back(std::move(*it));
    } else {
      *out++ = std::move(*it);
    }
  }
  running_.erase(out, running_.end());
  load_changed();
  seg_valid_ = false;
  busy_ = true;  // completions may submit: one kick after all of them
  // Finished answers first, then hand-overs (a prefill replica's prompts), each in admission order.
  for (auto& a : leaving) {
    if (a.generated >= a.req.output_tokens) {
      recorder_.add(a.rec);
      a.done(a.rec);
    }
  }
  for (auto& a : leaving) {
    if (a.generated < a.req.output_tokens) handoff_(a.req, a.rec, std::move(a.done));
  }
  leaving.clear();
  busy_ = false;
}

}  // namespace agentsim::serving
