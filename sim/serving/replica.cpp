#include "sim/serving/replica.hpp"

#include <algorithm>
#include <cmath>

namespace agentsim::serving {

long long kv_capacity_tokens(const wl::ModelSpec& model, const hw::System& system, int tp,
                             double mem_fraction) {
  const double usable = system.accelerator.hbm_bytes * tp * mem_fraction - model.weight_bytes();
  return static_cast<long long>(std::floor(usable / model.kv_bytes_per_token()));
}

Replica::Replica(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system,
                 ReplicaOptions opt, metrics::Recorder& recorder, int id)
    : sim_(sim), model_(model), system_(system), opt_(opt), recorder_(recorder), id_(id) {}

void Replica::submit(const Request& r, CompletionFn done) {
  Active a;
  a.req = r;
  a.done = std::move(done);
  a.rec.agent = r.agent;
  a.rec.input_tokens = r.input_tokens;
  a.rec.output_tokens = r.output_tokens;
  a.rec.arrival_s = sim_.now_s();
  a.kv_tokens = r.input_tokens + r.output_tokens;
  if (a.kv_tokens > opt_.kv_capacity_tokens) {
    // It could never be admitted: reject now rather than block the queue forever.
    a.rec.rejected = true;
    recorder_.add(a.rec);
    a.done(a.rec);
    return;
  }
  waiting_.push_back(std::move(a));
  if (!busy_ && !in_end_step_ && !kick_pending_) {
    // Start after every other event of this instant, so simultaneous arrivals share a step.
    kick_pending_ = true;
    sim_.after(0, [this] {
      kick_pending_ = false;
      maybe_start_step();
    }, /*priority=*/1);
  }
}

void Replica::maybe_start_step() {
  if (busy_) return;
  StepBatch batch;
  std::vector<std::size_t> decode_slots, prefill_slots;
  std::vector<long long> chunks;

  for (std::size_t i = 0; i < running_.size(); ++i) {
    const Active& a = running_[i];
    if (a.prefilled == a.req.input_tokens) {
      batch.decodes.push_back(DecodeItem{a.req.input_tokens + a.generated - 1});
      decode_slots.push_back(i);
    }
  }
  long long budget = opt_.max_batch_tokens - static_cast<long long>(batch.decodes.size());
  auto add_prefill = [&](std::size_t slot) {
    Active& a = running_[slot];
    const long long chunk = std::min(budget, a.req.input_tokens - a.prefilled);
    batch.prefills.push_back(PrefillChunk{chunk, a.prefilled, a.prefilled + chunk == a.req.input_tokens});
    prefill_slots.push_back(slot);
    chunks.push_back(chunk);
    budget -= chunk;
  };
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    if (running_[i].prefilled < running_[i].req.input_tokens) add_prefill(i);
  }
  // Admit FCFS; the head of the queue blocks those behind it (no overtaking).
  while (budget > 0 && !waiting_.empty() &&
         static_cast<int>(running_.size()) < opt_.max_sequences &&
         kv_used_ + waiting_.front().kv_tokens <= opt_.kv_capacity_tokens) {
    kv_used_ += waiting_.front().kv_tokens;
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
    add_prefill(running_.size() - 1);
  }
  if (batch.empty()) return;

  const StepCost cost = step_cost(batch, model_, system_, opt_.cost);
  metrics::StepRecord step;
  step.replica = id_;
  step.start_s = sim_.now_s();
  step.decode_tokens = static_cast<int>(batch.decodes.size());
  for (long long c : chunks) step.prefill_tokens += c;
  step.sampled_tokens = static_cast<int>(batch.sampled_tokens());
  step.batch_sequences = static_cast<int>(batch.decodes.size() + batch.prefills.size());
  step.compute_s = cost.compute_s;
  step.memory_s = cost.memory_s;
  step.comm_s = cost.comm_latency_s + cost.comm_transfer_s;
  step.overhead_s = cost.overhead_s;

  busy_ = true;
  sim_.after(core::to_ticks(cost.total_s),
             [this, ps = std::move(prefill_slots), cs = std::move(chunks), ds = std::move(decode_slots),
              step]() mutable { end_step(std::move(ps), std::move(cs), std::move(ds), step); });
}

void Replica::end_step(std::vector<std::size_t> prefill_slots, std::vector<long long> chunks,
                       std::vector<std::size_t> decode_slots, metrics::StepRecord step) {
  const double now = sim_.now_s();
  step.end_s = now;
  for (std::size_t k = 0; k < prefill_slots.size(); ++k) {
    Active& a = running_[prefill_slots[k]];
    a.prefilled += chunks[k];
    if (a.prefilled == a.req.input_tokens) {
      a.generated = 1;
      a.rec.first_token_s = now;
      a.rec.last_token_s = now;
      step.cached_tokens += a.rec.cached_tokens;
    }
  }
  for (std::size_t slot : decode_slots) {
    Active& a = running_[slot];
    ++a.generated;
    a.rec.last_token_s = now;
  }
  recorder_.add(step);

  // Retire finished sequences; keep admission order of the rest.
  std::vector<Active> done;
  std::vector<Active> still;
  still.reserve(running_.size());
  for (auto& a : running_) {
    if (a.prefilled == a.req.input_tokens && a.generated >= a.req.output_tokens) {
      kv_used_ -= a.kv_tokens;
      done.push_back(std::move(a));
    } else {
      still.push_back(std::move(a));
    }
  }
  running_ = std::move(still);
  busy_ = false;
  in_end_step_ = true;
  for (auto& a : done) {
    recorder_.add(a.rec);
    a.done(a.rec);
  }
  in_end_step_ = false;
  maybe_start_step();
}

}  // namespace agentsim::serving
