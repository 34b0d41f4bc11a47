// A request's path outside the engine loop: the engine sees a request `latency` after the
// client sent it, and the request's record counts from the send.
#include <gtest/gtest.h>

#include <vector>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/request_path.hpp"

namespace agentsim::serving {
namespace {

// Records when each request reached it and completes it at once.
struct Engine : RequestSink {
  core::Simulator& sim;
  std::vector<std::pair<double, Request>> seen;
  explicit Engine(core::Simulator& s) : sim(s) {}
  void submit(const Request& r, CompletionFn done) override {
    seen.emplace_back(sim.now_s(), r);
    metrics::RequestRecord rec;
    rec.arrival_s = r.sent_s;
    done(rec);
  }
};

TEST(RequestPath, TheEngineSeesARequestLatencyAfterTheSendAndKnowsTheSend) {
  core::Simulator sim;
  Engine engine(sim);
  RequestPath path(sim, engine, 0.25);
  double done_at = -1, recorded_send = -1;
  sim.at(core::to_ticks(1.0), [&] {
    Request r;
    r.agent = 7;
    r.input_tokens = 10;
    r.output_tokens = 2;
    path.submit(r, [&](const metrics::RequestRecord& rec) { done_at = sim.now_s(), recorded_send = rec.arrival_s; });
  });
  sim.run_until_idle();
  ASSERT_EQ(engine.seen.size(), 1u);
  EXPECT_DOUBLE_EQ(engine.seen[0].first, 1.25);
  EXPECT_EQ(engine.seen[0].second.agent, 7);
  EXPECT_DOUBLE_EQ(engine.seen[0].second.sent_s, 1.0);
  EXPECT_DOUBLE_EQ(done_at, 1.25);  // the completion comes back through the path untouched
  EXPECT_DOUBLE_EQ(recorded_send, 1.0);
}

TEST(RequestPath, ZeroLatencyPassesStraightThroughWithoutAnEvent) {
  core::Simulator sim;
  Engine engine(sim);
  RequestPath path(sim, engine, 0.0);
  Request r;
  r.output_tokens = 1;
  path.submit(r, [](const metrics::RequestRecord&) {});
  ASSERT_EQ(engine.seen.size(), 1u);  // synchronously: the same as submitting to the engine
  EXPECT_LT(engine.seen[0].second.sent_s, 0);
  EXPECT_EQ(sim.events_pending(), 0u);
}

TEST(RequestPath, NegativeLatencyIsAnError) {
  core::Simulator sim;
  Engine engine(sim);
  EXPECT_THROW(RequestPath(sim, engine, -1e-3), core::Error);
}

// On an idle replica a lone request's engine timeline only shifts: its TTFT grows by exactly
// the latency, its decode does not change, and its record's arrival is the send.
TEST(RequestPath, ALoneRequestsTtftGrowsByTheLatencyOnARealReplica) {
  const auto& catalog = test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-8b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  const auto run = [&](double latency_s) {
    core::Simulator sim;
    metrics::Recorder rec;
    ReplicaOptions o;
    o.cost = StepCostOptions{1, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, 1, 0.9);
    Replica replica(sim, model, system, o, rec);
    RequestPath path(sim, replica, latency_s);
    sim.at(core::to_ticks(0.5), [&] {
      Request r;
      r.input_tokens = 2000;
      r.output_tokens = 50;
      path.submit(r, [](const metrics::RequestRecord&) {});
    });
    sim.run_until_idle();
    EXPECT_EQ(rec.requests().size(), 1u);
    return rec.requests().at(0);
  };
  const metrics::RequestRecord direct = run(0.0), delayed = run(0.12);
  EXPECT_DOUBLE_EQ(direct.arrival_s, 0.5);
  EXPECT_DOUBLE_EQ(delayed.arrival_s, 0.5);
  EXPECT_NEAR(delayed.first_token_s - direct.first_token_s, 0.12, 1e-9);
  EXPECT_NEAR(delayed.last_token_s - delayed.first_token_s, direct.last_token_s - direct.first_token_s, 1e-9);
}

}  // namespace
}  // namespace agentsim::serving
