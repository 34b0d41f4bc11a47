#pragma once
// One model replica with continuous batching: each step runs every decoding
// sequence (one token each) plus prefill chunks in FCFS order up to a token
// budget. A request is admitted when the KV cache can hold its prompt and its
// whole answer; its first token is emitted when its last prefill chunk ends.
#include <cstdint>
#include <deque>
#include <vector>

#include "hwmodels/system.hpp"
#include "sim/core/simulator.hpp"
#include "sim/metrics/recorder.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/step_cost.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::serving {

struct ReplicaOptions {
  StepCostOptions cost;             // tp, efficiencies, step overhead
  long long max_batch_tokens = 8192; // new tokens per step (decode + prefill)
  int max_sequences = 256;          // sequences in the running batch
  long long kv_capacity_tokens = 0; // KV cache size in tokens (from HBM left after weights)
};

// KV tokens that fit: (HBM of `tp` devices x mem_fraction - weights) / KV per token.
// Returns <= 0 when the weights alone do not fit.
long long kv_capacity_tokens(const wl::ModelSpec& model, const hw::System& system, int tp,
                             double mem_fraction);

class Replica : public RequestSink {
 public:
  Replica(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system,
          ReplicaOptions opt, metrics::Recorder& recorder, int id = 0);

  // Queues `r` at the current simulated time; `done` fires when it finishes.
  void submit(const Request& r, CompletionFn done) override;

  std::size_t waiting() const { return waiting_.size(); }
  std::size_t running() const { return running_.size(); }
  long long kv_used_tokens() const { return kv_used_; }

 private:
  struct Active {
    Request req;
    CompletionFn done;
    metrics::RequestRecord rec;
    long long prefilled = 0;
    long long generated = 0;
    long long kv_tokens = 0;  // reserved
  };

  void maybe_start_step();
  void end_step(std::vector<std::size_t> prefill_slots, std::vector<long long> chunks,
                std::vector<std::size_t> decode_slots, metrics::StepRecord step);

  core::Simulator& sim_;
  const wl::ModelSpec& model_;
  const hw::System& system_;
  ReplicaOptions opt_;
  metrics::Recorder& recorder_;
  int id_;
  bool busy_ = false;
  bool kick_pending_ = false;  // a step start is scheduled for this instant
  bool in_end_step_ = false;  // completions may submit; start the next step once, after them
  long long kv_used_ = 0;
  std::deque<Active> waiting_;
  std::vector<Active> running_;  // in admission order
};

}  // namespace agentsim::serving
