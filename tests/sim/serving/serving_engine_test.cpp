// Engine mechanisms: decode fast-forward equals stepping, routers pick as derived by
// hand, disaggregation moves KV over the topology, on-demand admission preempts.
#include <gtest/gtest.h>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "hwmodels/topology.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/cluster.hpp"
#include "sim/metrics/summary.hpp"
#include "workloads/sessions/trace_formats.hpp"

namespace agentsim::serving {
namespace {

struct ServingEngine : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-70b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  const wl::Trace trace =
      wl::load_trace("", std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code-sample/requests.csv");
  // A topology of `systems` HGX systems, one 8-GPU replica a system.
  hw::Topology systems_topology(int systems) const {
    hw::ClusterHardware hc;
    hc.system = system;
    hc.systems = systems;
    return hw::build_topology(hc);
  }
  // One prefill replica then `decode` decode replicas, routed to by `decode_router`.
  static ClusterOptions split(int decode, RouterPolicy decode_router = RouterPolicy::kLeastLoaded) {
    ClusterOptions co;
    co.prefill_replicas = 1;
    co.decode_replicas = decode;
    co.devices_per_replica = 8;
    co.decode_router = decode_router;
    return co;
  }
  ReplicaOptions options() const {
    ReplicaOptions o;
    o.cost = StepCostOptions{8, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, 8, 0.9);
    o.kv.unit_tokens = 64;
    return o;
  }
  struct Run {
    std::vector<metrics::RequestRecord> requests;
    metrics::Summary summary;
    unsigned long long events = 0;
  };
  Run closed(const ReplicaOptions& o, int agents, int replicas = 1) {
    core::Simulator sim;
    metrics::Recorder rec;
    ClusterOptions co;
    co.replicas = replicas;
    co.router = RouterPolicy::kSessionAffinity;
    Cluster cluster(sim, model, system, o, co, rec);
    ClosedLoopOptions lo;
    lo.agents = agents;
    lo.seed = 3;
    lo.max_context_tokens = model.max_context;
    ClosedLoopDriver d(sim, cluster, trace, lo);
    d.start();
    sim.run_until(core::to_ticks(120.0));
    return Run{rec.requests(), metrics::summarize(rec, 20.0, 120.0, cluster.counters()), sim.events_run()};
  }
};

void expect_same(const metrics::Summary& a, const metrics::Summary& b) {
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_DOUBLE_EQ(a.output_tok_s, b.output_tok_s);
  EXPECT_DOUBLE_EQ(a.total_tok_s, b.total_tok_s);
  EXPECT_DOUBLE_EQ(a.computed_input_tok_s, b.computed_input_tok_s);
  EXPECT_DOUBLE_EQ(a.agent_output_tok_s_p50, b.agent_output_tok_s_p50);
  EXPECT_DOUBLE_EQ(a.agent_output_tok_s_p10, b.agent_output_tok_s_p10);
  EXPECT_DOUBLE_EQ(a.ttft_s_p50, b.ttft_s_p50);
  EXPECT_DOUBLE_EQ(a.ttft_s_p99, b.ttft_s_p99);
  EXPECT_DOUBLE_EQ(a.itl_s_mean, b.itl_s_mean);
  EXPECT_DOUBLE_EQ(a.mean_batch_sequences, b.mean_batch_sequences);
  EXPECT_DOUBLE_EQ(a.prefix_hit_rate, b.prefix_hit_rate);
  // Summed as frac x k instead of k additions of frac: equal up to rounding.
  EXPECT_NEAR(a.kv_occupancy_mean, b.kv_occupancy_mean, 1e-12);
  EXPECT_EQ(a.evictions, b.evictions);
  EXPECT_EQ(a.preemptions, b.preemptions);
}

void expect_same(const std::vector<metrics::RequestRecord>& a, const std::vector<metrics::RequestRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].agent, b[i].agent);
    EXPECT_EQ(a[i].cached_tokens, b[i].cached_tokens);
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].first_token_s, b[i].first_token_s);
    EXPECT_EQ(a[i].last_token_s, b[i].last_token_s);
  }
}

// Stepping prices every step exactly; fast-forward prices runs from affine pieces checked
// against it (fast_forward_exact_test.cpp), and lands on the same ticks.
TEST_F(ServingEngine, FastForwardEqualsSteppingOnEveryMetric) {
  for (Admission adm : {Admission::kReserveFull, Admission::kOnDemand}) {
    ReplicaOptions o = options();
    o.admission = adm;
    o.barriers_s = {20.0, 120.0};
    if (adm == Admission::kOnDemand) o.kv_capacity_tokens = 150'000;  // tight: preemptions happen
    ReplicaOptions ff = o;
    ff.fast_forward = true;
    const Run a = closed(o, 16, 2), b = closed(ff, 16, 2);
    expect_same(a.requests, b.requests);
    expect_same(a.summary, b.summary);
    if (adm == Admission::kReserveFull) {
      EXPECT_GT(a.summary.prefix_hit_rate, 0.2);
    }
    EXPECT_LT(b.events, a.events) << "fast-forward runs fewer events";
  }
}

// With speculative decoding each step's tokens are drawn per request, and decode stretches
// are priced step by step even with fast-forward on: every metric still agrees bit for bit,
// speculation changes the outcome, and the same seed gives the same run.
TEST_F(ServingEngine, FastForwardEqualsSteppingWithSpeculation) {
  SpecDecodeOptions spec;
  spec.draft_tokens = 3;
  spec.acceptance = {0.8, 0.6, 0.4};
  for (Admission adm : {Admission::kReserveFull, Admission::kOnDemand}) {
    ReplicaOptions o = options();
    o.admission = adm;
    o.barriers_s = {20.0, 120.0};
    o.cost.spec = spec;
    o.seed = 5;
    if (adm == Admission::kOnDemand) o.kv_capacity_tokens = 150'000;  // tight: preemptions happen
    ReplicaOptions ff = o;
    ff.fast_forward = true;
    const Run a = closed(o, 16, 2), b = closed(ff, 16, 2);
    expect_same(a.requests, b.requests);
    expect_same(a.summary, b.summary);
    EXPECT_EQ(a.events, b.events) << "speculating decode steps are stepped either way";
    const Run again = closed(ff, 16, 2);
    expect_same(b.requests, again.requests);
    expect_same(b.summary, again.summary);
    ReplicaOptions plain = ff;
    plain.cost.spec = {};
    const Run c = closed(plain, 16, 2);
    EXPECT_GT(b.summary.agent_output_tok_s_p50, 1.3 * c.summary.agent_output_tok_s_p50) << "speculation speeds agents up";
    ReplicaOptions other_seed = ff;
    other_seed.seed = 6;
    const Run d = closed(other_seed, 16, 2);
    EXPECT_NE(b.summary.agent_output_tok_s_p50, d.summary.agent_output_tok_s_p50) << "the seed keys the draws";
  }
}

// Two sequences of 100 prompt + 200 answer tokens in 5 blocks of 64 (320 tokens): each
// admits with 2 blocks; at 29 answer tokens each needs a third, only one is free, so the
// newer one (B) is preempted and comes back later. Both still finish with every token.
TEST_F(ServingEngine, OnDemandAdmissionPreemptsWhenKvRunsOut) {
  for (Preemption p : {Preemption::kRecompute, Preemption::kSwap}) {
    core::Simulator sim;
    metrics::Recorder rec;
    ReplicaOptions o = options();
    o.admission = Admission::kOnDemand;
    o.preemption = p;
    o.kv_capacity_tokens = 320;
    o.kv.tiers = {KvTierSpec{"hbm", "local", 0, 0, 0}, KvTierSpec{"host", "pcie5", 1'000'000, 50e9, 0}};
    Replica replica(sim, model, system, o, rec);
    Request q;
    q.input_tokens = 100;
    q.output_tokens = 200;
    int finished = 0;
    replica.submit(q, [&](const metrics::RequestRecord& r) { finished += r.rejected ? 0 : 1; });
    replica.submit(q, [&](const metrics::RequestRecord& r) { finished += r.rejected ? 0 : 1; });
    sim.run_until(core::to_ticks(60.0));
    EXPECT_EQ(finished, 2);
    EXPECT_GE(replica.kv().counters().preemptions, 1);
    if (p == Preemption::kSwap) {
      EXPECT_GT(replica.kv().counters().tiers[1].bytes_loaded, 0);
    }
    long long out = 0;
    for (const auto& st : rec.steps()) out += static_cast<long long>(st.sampled_tokens) * st.steps;
    EXPECT_EQ(out, 400) << "every answer token emitted once";
  }
}

// A replica's load is waiting + running requests; ties go to the lowest index.
TEST_F(ServingEngine, RoutersPickAsDerivedByHand) {
  core::Simulator sim;
  metrics::Recorder rec;
  ReplicaOptions o = options();
  std::vector<std::unique_ptr<Replica>> owned;
  std::vector<Replica*> reps;
  for (int i = 0; i < 3; ++i) {
    owned.push_back(std::make_unique<Replica>(sim, model, system, o, rec, i));
    reps.push_back(owned.back().get());
  }
  Request q;
  q.input_tokens = 1000;
  q.output_tokens = 10;
  Router rr(RouterPolicy::kRoundRobin);
  EXPECT_EQ(rr.pick(q, reps), 0u);
  EXPECT_EQ(rr.pick(q, reps), 1u);
  EXPECT_EQ(rr.pick(q, reps), 2u);
  EXPECT_EQ(rr.pick(q, reps), 0u);
  // Loads 2, 0, 1 -> least loaded is replica 1.
  reps[0]->submit(q, [](const metrics::RequestRecord&) {});
  reps[0]->submit(q, [](const metrics::RequestRecord&) {});
  reps[2]->submit(q, [](const metrics::RequestRecord&) {});
  Router ll(RouterPolicy::kLeastLoaded);
  EXPECT_EQ(ll.pick(q, reps), 1u);
  // Session affinity: turn 0 of session 0 goes least loaded (1), later turns follow it
  // even when replica 1 becomes the most loaded.
  Router sa(RouterPolicy::kSessionAffinity);
  Request t0 = q;
  t0.trace = &trace;
  t0.turn = wl::TurnRef{0, 0};
  EXPECT_EQ(sa.pick(t0, reps), 1u);
  for (int i = 0; i < 3; ++i) reps[1]->submit(q, [](const metrics::RequestRecord&) {});
  t0.turn.turn = 1;
  EXPECT_EQ(sa.pick(t0, reps), 1u);
  // KV-aware: cost = prompt tokens not cached there + pending prefill tokens there.
  // Pending: r0 2000, r1 3000, r2 1000 (1000 each, nothing cached) -> replica 2.
  Router kva(RouterPolicy::kKvAware);
  EXPECT_EQ(kva.pick(t0, reps), 2u);
}

TEST_F(ServingEngine, DisaggregationTransfersKvOverTheTopology) {
  core::Simulator sim;
  metrics::Recorder rec;
  const hw::Topology topo = systems_topology(2);
  Cluster cluster(sim, model, system, options(), split(1), rec, &topo);
  // Replica 0 = system 0's GPUs, replica 1 = system 1's: GPU 0 -> GPU 8 crosses the scale-out fabric.
  const hw::Route route = topo.gpu_route(0, 8);
  const double bytes_per_device = 4096.0 * model.kv_bytes_per_token() / 8;
  const double expect_s = route.latency_s + bytes_per_device / route.bottleneck_Bps;
  EXPECT_DOUBLE_EQ(cluster.transfer_s(0, 1, 4096), expect_s);
  EXPECT_GT(route.hops, 2);

  Request q;
  q.input_tokens = 4096;
  q.output_tokens = 8;
  metrics::RequestRecord got;
  cluster.submit(q, [&](const metrics::RequestRecord& r) { got = r; });
  sim.run_until(core::to_ticks(10.0));
  // The decode replica starts after the prefill replica's first token plus the transfer.
  const auto& steps = rec.steps();
  ASSERT_GE(steps.size(), 2u);
  EXPECT_EQ(steps[0].replica, 0);
  EXPECT_EQ(steps[1].replica, 1);
  EXPECT_EQ(steps[1].start_s, core::to_seconds(core::to_ticks(steps[0].end_s) + core::to_ticks(expect_s)));
  // The client's first token comes from the decode replica, as it takes the request into its batch.
  EXPECT_EQ(got.first_token_s, steps[1].start_s);
  EXPECT_GT(got.first_token_s, steps[0].end_s);
  EXPECT_EQ(cluster.counters().kv_transfers, 1);
  EXPECT_DOUBLE_EQ(cluster.counters().kv_transfer_bytes, 4096.0 * model.kv_bytes_per_token());
  long long out = 0;
  for (const auto& s : steps) out += static_cast<long long>(s.sampled_tokens) * s.steps;
  EXPECT_EQ(out, 8) << "first token from prefill, 7 from decode";
}

// Two decode replicas of one slot each; A (long) and B (short) take one each, C arrives once B is
// done. Round robin hands C to A's replica, where it waits for A's slot, and its first token with
// it; least loaded hands it to the free one.
TEST_F(ServingEngine, DecodeRouterRoundRobinWaitsAtAFullReplica) {
  auto c_ttft_s = [&](RouterPolicy decode_router, double* a_done_s) {
    core::Simulator sim;
    metrics::Recorder rec;
    const hw::Topology topo = systems_topology(3);
    ReplicaOptions decode = options();
    decode.max_sequences = 1;
    const ReplicaOptions prefill = options();
    Cluster cluster(sim, model, system, decode, split(2, decode_router), rec, &topo, &prefill);
    Request a, b, c;
    a.agent = 1, b.agent = 2, c.agent = 3;
    a.input_tokens = b.input_tokens = c.input_tokens = 1024;
    a.output_tokens = 400;
    b.output_tokens = c.output_tokens = 4;
    metrics::RequestRecord got_a, got_c;
    cluster.submit(a, [&](const metrics::RequestRecord& r) { got_a = r; });
    cluster.submit(b, [](const metrics::RequestRecord&) {});
    sim.after(core::to_ticks(1.0), [&] { cluster.submit(c, [&](const metrics::RequestRecord& r) { got_c = r; }); });
    sim.run_until(core::to_ticks(60.0));
    *a_done_s = got_a.last_token_s;
    EXPECT_GT(got_c.last_token_s, 0.0);
    EXPECT_DOUBLE_EQ(got_c.arrival_s, 1.0);
    return got_c.first_token_s - got_c.arrival_s;
  };
  double a_done_rr = 0, a_done_ll = 0;
  const double rr = c_ttft_s(RouterPolicy::kRoundRobin, &a_done_rr);
  const double ll = c_ttft_s(RouterPolicy::kLeastLoaded, &a_done_ll);
  EXPECT_GT(a_done_rr, 1.5) << "A must still decode when C arrives";
  EXPECT_LT(ll, 0.5);
  EXPECT_GE(rr + 1.0, a_done_rr) << "C starts only after A's slot frees";
}

}  // namespace
}  // namespace agentsim::serving
