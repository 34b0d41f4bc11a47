// Adapter: experiments/validation/measured/serving-points-2/serving_points.csv (PROVENANCE.md there).
#include <algorithm>
#include <cmath>
#include <regex>

#include "calibration/disagg_worker_gpus.hpp"
#include "calibration/inferencex_client.hpp"
#include "calibration/measured_row.hpp"
#include "calibration/run_date.hpp"

namespace agentsim::calib {
using namespace detail;

namespace {

// TensorRT-LLM's DeepSeek-R1 best-practice blog (the TRTBP- rows; docs/source/blogs/
// Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md @01c4ece) states no speculative method per
// row, but its max-throughput runs ran none ("For the max-throughput benchmarking, synthetic dataset
// is enough to be representative, since it does not use MTP"; their extra-llm-api-options set no
// speculative_config), each with its trtllm-bench --kv_cache_free_gpu_mem_fraction.
struct BlogMaxThroughput {
  std::string_view id;
  double kv_free_memory_fraction;
};
constexpr BlogMaxThroughput kBlogMaxThroughput[] = {
    {"TRTBP-B200-MAXTP-FP8KV", 0.93},   // "B200 max-throughput for R1-0528 with FP8 KV cache"
    {"TRTBP-B200-MAXTP-BF16KV", 0.85},  // "B200 max-throughput for R1 with FP16 KV cache"
    {"TRTBP-H200-MAXTP", 0.8},          // "H200 max-throughput"
};

const BlogMaxThroughput* blog_max_throughput(const std::string& id) {
  for (const auto& b : kBlogMaxThroughput) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

// Redundant experts a source's deployment ran that its rows do not repeat (0: none stated). The
// LMSYS 96-GPU deployment runs SGLang's expert-parallel load balancer with 32 on its prefill and
// decode servers (its reproduction commands, sgl-project/sglang issue #6017:
// `--ep-num-redundant-experts 32`).
int stated_redundant_experts(const std::string& source) {
  return source.find("lm-sys/lm-sys.github.io") != std::string::npos &&
                 source.find("2025-05-05-large-scale-ep.md") != std::string::npos
             ? 32
             : 0;
}

// An engine limit stated after the degrees ("TP8 EP8, attention DP, max_batch_size 896,
// max_num_tokens 2048"): its value, or 0 where the text states none.
int stated_limit(const std::string& plan, const char* name) {
  const std::regex re(std::string(name) + R"(\s+(\d{1,7})\b)");
  std::smatch m;
  return std::regex_search(plan, m, re) ? std::stoi(m[1].str()) : 0;
}

}  // namespace

MeasuredFile read_serving_points_2(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  static constexpr std::string_view kColumns[] = {
      "id", "source_url", "engine_version", "system", "gpus", "model", "precision", "plan(tp/ep/dp)", "isl", "osl",
      "concurrency", "output_tok_s_per_gpu", "total_tok_s_per_gpu", "user_tok_s", "ttft_s_mean", "ttft_s_p50",
      "tpot_s_mean", "tpot_s_p50", "spec_method", "accept_len", "power_w_per_gpu", "notes"};
  check_known_columns(csv.header(), kColumns, file);
  const auto col = [&](std::string_view n) { return csv.column(n); };
  MeasuredFile out{file, "serving-points-2", 0, {}, {}};
  while (csv.next()) {
    ++out.rows;
    MeasuredRun r = new_row(csv, csv.field(col("id")));
    r.source = csv.field(col("source_url"));
    r.source_key = r.id;  // unique; the set repeats no other file's rows (PROVENANCE.md)
    std::string why;
    if (r.id.empty()) why = "no row id";
    r.model = take(map_model(csv.field(col("model"))), why);
    const std::string& system = csv.field(col("system"));
    r.system = take(system == "other" ? Mapped{"", "system 'other' (not a catalog system; the notes name the GPU)"}
                                      : map_hardware(system),
                    why);
    const Mapped engine = map_engine(csv.field(col("engine_version")));
    const bool inferencex = r.source.find("SemiAnalysisAI/InferenceX") != std::string::npos;
    const std::string& plan = csv.field(col("plan(tp/ep/dp)"));
    const bool role = plan.rfind("prefill-only", 0) == 0 || plan.rfind("decode-only", 0) == 0;
    if (role) {
      // The wide-EP set (measured/wide-ep/): one role's replica measured alone at a stated batch.
      const RoleRun rr = map_role_run(plan, csv.field(col("notes")));
      const std::string& spec_text = csv.field(col("spec_method"));
      if (why.empty() && spec_text.find("simulated") != std::string::npos) {
        // The source's "simulated MTP" decode: doubled batch and slowed attention, not a run with a drafter.
        why = "spec_method '" + spec_text + "': a simulated speculative run (the source's approximation), not a measurement";
      } else if (why.empty() && !spec_text.empty()) {
        why = "spec_method '" + spec_text + "': a one-role row's steady step is predicted without speculation";
      } else if (why.empty()) {
        why = rr.reason;
      }
      r.plan = rr.plan;
      if (const int re = stated_redundant_experts(r.source); re > 0 && !r.plan.empty()) {
        r.plan += ",re=" + std::to_string(re);
      }
      r.scenario = rr.scenario;
      r.role_batch_per_device = rr.batch_per_device;
      r.two_batch_overlap = rr.two_batch_overlap;
    } else if (plan.rfind("disagg", 0) == 0) {
      // The workers fill the GPUs the notes state (InferenceX's SGLang configs: placeholders).
      const DisaggregatedPlan d = disagg_on_stated_gpus(map_disaggregated(plan), plan, csv.field(col("notes")),
                                                        inferencex && engine.ok() && engine.value == "sglang");
      r.plan = take(d.plan, why);
      r.prefill_replicas = d.prefill_replicas, r.decode_replicas = d.decode_replicas;
      if (d.prefill_plan != r.plan) r.prefill_plan = d.prefill_plan;
    } else {
      r.plan = take(map_plan(plan), why);
    }
    r.engine = take(engine, why);
    // InferenceX drives its runs with random-token prompts (PROVENANCE.md, "Caveats").
    r.random_prompts = inferencex;
    // The wide-EP set states no method where none ran (its one speculative row is simulated, above).
    const BlogMaxThroughput* blog = blog_max_throughput(r.id);
    const std::string spec_text =
        blog != nullptr && csv.field(col("spec_method")).empty() ? "none" : csv.field(col("spec_method"));
    const Mapped spec = role && spec_text.empty() ? Mapped{"0", ""} : map_speculative(spec_text);
    r.speculative = take(spec, why) == "1";
    if (r.speculative) {
      r.accept_len = optional_positive(csv, col("accept_len"), 1, why);
      r.draft_tokens = stated_draft_tokens(csv.field(col("spec_method")));  // InferenceX rows: their recipe's, below
    }
    const Precision p = map_precision(csv.field(col("precision")));
    if (!p.reason.empty() && why.empty()) why = p.reason;
    r.weights_dtype = p.weights, r.experts_dtype = p.experts, r.kv_dtype = p.kv;
    r.gpus = static_cast<int>(required_count(csv, col("gpus"), why));
    r.isl = required_count(csv, col("isl"), why);
    if (role) {
      // One step's batch, not a client: each prompt yields its first token (prefill), each
      // sequence one token a step (decode); the stated batch is the concurrency.
      r.osl = 1;
      r.concurrency = static_cast<double>(r.role_batch_per_device) * r.gpus;
      if (r.scenario == "prefill-only") r.concurrency = std::ceil(r.concurrency / std::max(1.0, static_cast<double>(r.isl)));
    } else {
      r.osl = required_count(csv, col("osl"), why);
      r.concurrency = static_cast<double>(required_count(csv, col("concurrency"), why));
    }
    // "InferenceX CI run YYYY-MM-DD" in the notes: when the run was measured.
    static const std::regex kRunDate(R"(CI run (\d{4}-\d{2}-\d{2}))");
    if (std::smatch m; std::regex_search(csv.field(col("notes")), m, kRunDate)) {
      r.run_date = m[1].str();
      if (!is_run_date(r.run_date) && why.empty()) why = "notes: CI run date '" + r.run_date + "' is not a calendar date";
    }
    if (r.random_prompts) apply_inferencex_run(r);  // its recipe's and its client's settings
    if (r.prefill_replicas > 0 && r.speculative && r.draft_tokens == 0 && why.empty()) {
      // The multi-node recipes set the decode servers' drafts per topology; those read:
      // inferencex_disagg_drafts.hpp.
      why = "speculative prefill/decode-disaggregated run: its multi-node recipe's draft tokens are not read";
    }
    r.metrics[metric("output_tok_s_per_gpu")] = optional_positive(csv, col("output_tok_s_per_gpu"), 1, why);
    r.metrics[metric("total_tok_s_per_gpu")] = optional_positive(csv, col("total_tok_s_per_gpu"), 1, why);
    if (blog != nullptr) {
      // A trtllm-bench run at its stated limits (a rank's, with attention DP) and KV fraction. Its
      // per-user figure is trtllm-bench's "[w/ ctx]" one (output over each request's whole latency,
      // queueing included), not a decode speed: not compared.
      r.trtllm_bench = true;
      r.max_sequences = stated_limit(plan, "max_batch_size");
      r.max_batch_tokens = stated_limit(plan, "max_num_tokens");
      r.kv_free_memory_fraction = blog->kv_free_memory_fraction;
    } else {
      r.metrics[metric("agent_output_tok_s")] = optional_positive(csv, col("user_tok_s"), 1, why);
    }
    r.metrics[metric("ttft_s_mean")] = optional_positive(csv, col("ttft_s_mean"), 1, why);
    r.metrics[metric("ttft_s_median")] = optional_positive(csv, col("ttft_s_p50"), 1, why);
    r.metrics[metric("tpot_s_mean")] = optional_positive(csv, col("tpot_s_mean"), 1, why);
    r.metrics[metric("tpot_s_median")] = optional_positive(csv, col("tpot_s_p50"), 1, why);
    r.metrics[metric("power_w_per_gpu")] = optional_positive(csv, col("power_w_per_gpu"), 1, why);
    r.mapping = csv.field(col("model")) + " | " + system + " | " + csv.field(col("plan(tp/ep/dp)")) + " | " +
                csv.field(col("precision")) + " | " + csv.field(col("engine_version")) + " | spec " +
                csv.field(col("spec_method"));
    file_row(out, std::move(r), std::move(why));
  }
  return out;
}

}  // namespace agentsim::calib
