// The bad-input catalogue: one row per malformed input (experiment YAML, catalog YAML,
// traces, calibration files, measured runs). Each row runs the real `agentsim` binary in
// a fresh folder and asserts exit code 2, the exact error line (file:line: key: what was
// expected) and that nothing was written. Convention: `expected` is the whole line after
// "agentsim: error: "; a trailing "…" marks a prefix, used only where the rest is a
// catalog-dependent list of valid names. "{line}" stands for the line a catalog patch replaced.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "calibration/calibration_file.hpp"
#include "tests/support/cli_runner.hpp"

namespace agentsim {
namespace {
namespace fs = std::filesystem;

// Replaces the first line whose text (after indentation) starts with `key` in a copy of a
// real catalog file, keeping the indentation.
struct CatalogPatch {
  std::string file;  // under cat/, e.g. "hwmodels/catalog/accelerators/h200.yaml"
  std::string key;   // e.g. "tdp:"
  std::string line;  // replacement, without indentation
};

struct Row {
  std::string name;
  std::string category;
  std::vector<std::pair<std::string, std::string>> files;  // relative path -> contents
  std::string command;                                     // arguments, run in the row's folder
  std::string expected;
  CatalogPatch patch{};                                    // only for rows run with --root cat
  std::function<void(const fs::path&)> make{};             // binary inputs (HDF5)
};

// GoogleTest prints a failing row by its name instead of its bytes.
// NOLINTNEXTLINE(readability-identifier-naming): GoogleTest finds a value printer by this name.
void PrintTo(const Row& row, std::ostream* os) { *os << row.name << " (" << row.category << ")"; }

// A valid experiment from the generator: rows change one thing in it.
const std::string kExp =
    "name: bad\n"
    "model: llama-3.1-8b\n"
    "system: hgx-h200\n"
    "workload:\n"
    "  generator: {turns: {median: 2, p90: 3}}\n"
    "  sessions: 4\n"
    "  concurrency: [1]\n"
    "  warmup: 1s\n"
    "  window: 10s\n";

// kExp with `extra` appended (a section of its own, starting at line 10).
std::string exp_with(const std::string& extra) { return kExp + extra; }

const std::string kCcCsvHead = "trace_id,agent_path,req_idx,in_tokens,out_tokens,think_time_s\n";
const std::string kCcCsvBlocksHead =
    "trace_id,agent_path,req_idx,in_tokens,out_tokens,think_time_s,lcp_blocks,lcp_parent_req,new_blocks\n";
const std::string kAzureHead = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const std::string kTraceHead = R"({"format": "agentsim-trace", "version": 1, "name": "t", "block_size": 64})" "\n";
const std::string kMeasuredHead =
    "id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,total_tok_s_per_gpu,"
    "agent_output_tok_s,ttft_s_mean,tpot_s_mean,tpot_s_median,power_w_per_gpu\n";
const std::string kMeasuredOk = "a,src,hgx-h200,llama-3.1-8b,tp=1,1,128,128,1,100,,,,,,\n";

std::vector<Row> rows() {
  const std::string run = "run exp.yaml --out out";
  const std::string acc = "hwmodels/catalog/accelerators/h200.yaml";
  const std::string sys = "hwmodels/catalog/systems/hgx-h200.yaml";
  const std::string mdl = "workloads/catalog/models/llama-3.1-8b.yaml";
  const std::string cat = "--root cat catalog list";
  return {
      // ---- experiment YAML: whole file ----
      {"ExpTruncated", "truncated", {{"exp.yaml", "name: bad\nworkload:\n  concurrency: [1, 2\n"}}, run,
       "exp.yaml:4: YAML syntax error: end of sequence flow not found"},
      {"ExpEmpty", "empty file", {{"exp.yaml", ""}}, run, "exp.yaml:1: expected a YAML mapping at the top level"},
      {"ExpIsAFolder", "folder for a file", {{"d/keep.txt", "x"}}, "run d --out out",
       "d: cannot open file: it is a folder, expected a file"},
      {"RunOutIsAFile", "file for a folder", {{"exp.yaml", kExp}}, "run exp.yaml --out exp.yaml",
       "exp.yaml: --out names a file; expected a folder (new or existing)"},
      {"ExpUnknownTopKey", "unknown key", {{"exp.yaml", "modle: x\n" + kExp}}, run,
       "exp.yaml:1: modle: unknown key (did you mean 'model'?); valid keys: name, seed, model, system, systems, "
       "deployment, search, serving, workload, readoffs, slo, power, record, what_if, error_bands, limits"},
      {"ExpDuplicateKey", "duplicate ids", {{"exp.yaml", kExp + "seed: 1\nseed: 2\n"}}, run,
       "exp.yaml:11: seed: duplicate key: expected each key once"},
      {"ExpSeedWrongType", "wrong type", {{"exp.yaml", exp_with("seed: lucky\n")}}, run,
       "exp.yaml:10: seed: expected an integer, found 'lucky'"},
      // ---- experiment YAML: model and systems (dangling references into the catalog) ----
      {"ExpModelNotInCatalog", "dangling reference",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-9b\nsystem: hgx-h200\n"}}, run,
       "exp.yaml:2: model: unknown model 'llama-3.1-9b' (did you mean 'llama-3.1-8b'?); valid: …"},
      {"ExpSystemNotInCatalog", "dangling reference",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h2000\n"}}, run,
       "exp.yaml:3: system: unknown system 'hgx-h2000' (did you mean 'hgx-h200'?); valid: …"},
      {"ExpSystemsDuplicate", "duplicate ids",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystems: [hgx-h200, hgx-h200]\n"}}, run,
       "exp.yaml:3: systems[1]: system 'hgx-h200' listed twice"},
      // ---- deployment ----
      {"DeploymentTpTooLarge", "huge value", {{"exp.yaml", exp_with("deployment:\n  tp: 256\n")}}, run,
       "exp.yaml:11: deployment.tp: expected an integer in [1, 128]"},
      {"DeploymentNotWholeSystems", "bad layout", {{"exp.yaml", exp_with("deployment:\n  tp: 4\n  dp: 3\n")}}, run,
       "exp.yaml:11: deployment: plan tp=4,ep=1,pp=1,dp=3 for llama-3.1-8b on hgx-h200: needs 12 devices, more than "
       "the system's 8: a replica over several systems fills whole systems (a multiple of 8)"},
      {"DeploymentNodesDisagree", "bad layout",
       {{"exp.yaml", exp_with("deployment:\n  tp: 16\n  nodes: 3\n")}}, run,
       "exp.yaml:12: deployment.nodes: tp x dp x pp = 16 devices on hgx-h200 (8 per system) span 2 system(s), not 3: "
       "expected nodes: 2 or degrees filling 3 systems"},
      {"DeploymentImbalanceNaN", "NaN", {{"exp.yaml", exp_with("deployment:\n  ep_imbalance: nan\n")}}, run,
       "exp.yaml:11: deployment.ep_imbalance: expected a number, found 'nan'"},
      {"DeploymentSpecAcceptanceAboveOne", "wrong value",
       {{"exp.yaml", exp_with("deployment:\n  speculative: {draft: 2, acceptance: [0.8, 1.5]}\n")}}, run,
       "exp.yaml:11: deployment.speculative.acceptance[1]: expected a probability in [0, 1]"},
      {"DeploymentSpecUnknownMode", "wrong value", {{"exp.yaml", exp_with("deployment:\n  speculative: on\n")}}, run,
       "exp.yaml:11: deployment.speculative: expected auto, off or {draft: K, acceptance: [p1, ...]}, found 'on'"},
      // ---- serving ----
      {"ServingUnknownUnit", "unknown unit", {{"exp.yaml", exp_with("serving:\n  step_overhead: 2parsecs\n")}}, run,
       "exp.yaml:11: serving.step_overhead: unknown unit 'parsecs' in '2parsecs': expected a time such as \"2us\", "
       "\"1.5ms\", \"30s\""},
      {"ServingInfiniteTime", "NaN/inf", {{"exp.yaml", exp_with("serving:\n  step_overhead: infms\n")}}, run,
       "exp.yaml:11: serving.step_overhead: 'infms' must be finite and non-negative"},
      {"ServingRequestLatencyTooLong", "wrong value", {{"exp.yaml", exp_with("serving:\n  request_latency: 20s\n")}}, run,
       "exp.yaml:11: serving.request_latency: expected a time in [0, 10s]"},
      {"ServingContextWaitRatioAboveOne", "wrong value",
       {{"exp.yaml", exp_with("serving:\n  context_wait: {batch_wait_max_tokens_ratio: 1.5}\n")}}, run,
       "exp.yaml:11: serving.context_wait.batch_wait_max_tokens_ratio: expected a number in [0, 1]"},
      {"ServingDecodeRouterUnknown", "wrong value",
       {{"exp.yaml", exp_with("serving:\n  disaggregation: {prefill_replicas: 1, decode_replicas: 1, decode_router: random}\n")}},
       run, "exp.yaml:11: serving.disaggregation.decode_router: unknown decode_router 'random'; valid: round_robin, "
            "least_loaded, session_affinity, kv_aware"},
      {"ServingDecodeMaxSequencesZero", "wrong value",
       {{"exp.yaml", exp_with("serving:\n  disaggregation: {prefill_replicas: 1, decode_replicas: 1, decode_max_sequences: 0}\n")}},
       run, "exp.yaml:11: serving.disaggregation.decode_max_sequences: expected an integer in [1, 1048576]"},
      {"ServingNegativeHostTier", "negative value",
       {{"exp.yaml", exp_with("serving:\n  kv_cache:\n    host: -1GB\n")}}, run,
       "exp.yaml:12: serving.kv_cache.host: '-1GB' must be finite and non-negative"},
      // ---- workload ----
      {"WorkloadConcurrencyEmpty", "empty list",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h200\nworkload:\n  generator: {}\n"
                     "  concurrency: []\n  warmup: 1s\n  window: 10s\n"}},
       run, "exp.yaml:6: workload.concurrency: expected a list of concurrency levels or auto"},
      {"WorkloadConcurrencyDuplicate", "duplicate ids",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h200\nworkload:\n  generator: {}\n"
                     "  concurrency: [4, 4]\n  warmup: 1s\n  window: 10s\n"}},
       run, "exp.yaml:6: workload.concurrency[1]: concurrency 4 listed twice: expected distinct levels (one run each)"},
      {"WorkloadTraceUnknownFormat", "unknown format",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h200\nworkload:\n  trace: t.txt\n"
                     "  concurrency: [1]\n  warmup: 1s\n  window: 10s\n"},
        {"t.txt", "hello\n"}},
       run, "t.txt:1: cannot tell the trace format from the first line; name it (workload.format in an experiment, "
            "--format to `agentsim trace`): one of agentsim, azure, claude-code-csv, claude-code-json, mooncake"},
      {"WorkloadTraceMissing", "dangling reference",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h200\nworkload:\n  trace: missing.jsonl\n"
                     "  concurrency: [1]\n  warmup: 1s\n  window: 10s\n"}},
       run, "exp.yaml:5: workload.trace: trace file not found: missing.jsonl"},
      {"WorkloadGeneratorRangeRatioAboveOne", "wrong value",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h200\nworkload:\n"
                     "  generator: {range_ratio: 1.2}\n  concurrency: [1]\n  warmup: 1s\n  window: 10s\n"}},
       run, "exp.yaml:5: workload.generator.range_ratio: expected a number in (0, 1]"},
      {"WorkloadGeneratorP90BelowMedian", "wrong value",
       {{"exp.yaml", "name: bad\nmodel: llama-3.1-8b\nsystem: hgx-h200\nworkload:\n"
                     "  generator: {turns: {median: 5, p90: 2}}\n  concurrency: [1]\n  warmup: 1s\n  window: 10s\n"}},
       run, "exp.yaml:5: workload.generator.turns.p90: expected a number >= median"},
      // ---- search (sweep) ----
      {"SearchEmptyCandidates", "empty list", {{"exp.yaml", exp_with("search:\n  tp: []\n")}}, run,
       "exp.yaml:11: search.tp: expected a non-empty list of candidate values"},
      {"SearchDuplicateCandidate", "duplicate ids", {{"exp.yaml", exp_with("search:\n  tp: [2, 2]\n")}}, run,
       "exp.yaml:11: search.tp[1]: candidate 2 listed twice: expected distinct values (each names one plan)"},
      // ---- slo, readoffs, power, record ----
      {"SloNegativeTier", "negative value", {{"exp.yaml", exp_with("slo:\n  tiers: [-5]\n")}}, run,
       "exp.yaml:11: slo.tiers[0]: expected a positive number"},
      {"SloZeroTtft", "wrong value", {{"exp.yaml", exp_with("slo:\n  tiers: [50]\n  ttft: 0s\n")}}, run,
       "exp.yaml:12: slo.ttft: expected a positive value"},
      {"PlanZeroTtft", "wrong value", {}, "plan --model llama-3.1-8b --agents 10 --agent-speed 100 --ttft-p90 0s",
       "--ttft-p90: expected a time > 0 (omit the option for no TTFT limit), got '0s'"},
      {"ReadoffsNotAList", "wrong type", {{"exp.yaml", exp_with("readoffs:\n  agent_speeds: fast\n")}}, run,
       "exp.yaml:11: readoffs.agent_speeds: expected a list"},
      {"PowerPueBelowOne", "wrong value", {{"exp.yaml", exp_with("power:\n  pue: 0.5\n")}}, run,
       "exp.yaml:11: power.pue: expected a PUE in [1, 3]"},
      // ---- what_if ----
      {"WhatIfUnknownEntry", "dangling reference", {{"exp.yaml", exp_with("what_if:\n  h900: {tdp: 700W}\n")}}, run,
       "exp.yaml:11: what_if.h900: unknown catalog entry 'h900' (did you mean 'h200'?); keys are accelerator, "
       "system or model names"},
      {"WhatIfNegativeTdp", "negative value", {{"exp.yaml", exp_with("what_if:\n  h200: {tdp: -700W}\n")}}, run,
       "exp.yaml:11: what_if.h200.tdp: '-700W' must be finite and non-negative"},
      // ---- --set overrides ----
      {"SetNegativeWindow", "negative value", {{"exp.yaml", kExp}}, run + " --set workload.window=-5s",
       "--set workload.window=-5s: workload.window: '-5s' must be finite and non-negative"},
      // The unknown top-level section is one the --set created: it was blamed on exp.yaml:1.
      {"SetUnknownSection", "unknown key", {{"exp.yaml", kExp}}, run + " --set servng.engine=sglang",
       "--set servng.engine=sglang: servng: unknown key (did you mean 'serving'?); valid keys: …"},
      {"SetUnknownKey", "unknown key", {{"exp.yaml", kExp}}, run + " --set serving.max_batch=4096",
       "--set serving.max_batch=4096: serving.max_batch: unknown key; valid keys: "
       "max_batch_tokens, max_sequences, engine, step_overhead, request_latency, overlap_scheduler, memory_fraction, efficiency, admission, preemption, "
       "fast_forward, scheduler_recv_interval, kernels, context_wait, kv_cache, router, replicas, disaggregation, pods, pod_sampling"},

      // ---- catalog: accelerator, system, model (copies of real entries with one line changed) ----
      {"AcceleratorNegativeTdp", "negative value", {}, cat,
       "cat/" + acc + ":{line}: tdp: '-700W' must be finite and non-negative", {acc, "tdp:", "tdp: \"-700W\""}},
      {"AcceleratorUnknownUnit", "unknown unit", {}, cat,
       "cat/" + acc + ":{line}: hbm_capacity: unknown unit 'GBs' in '141GBs': expected a size such as \"141GB\", "
       "\"64KiB\"",
       {acc, "hbm_capacity:", "hbm_capacity: \"141GBs\""}},
      {"AcceleratorHugeFlops", "huge value", {}, cat,
       "cat/" + acc + ":{line}: peak_flops.bf16: '1e308PFLOP/s' is too large: expected a FLOP rate such as "
       "\"989TFLOP/s\"",
       {acc, "bf16:", "bf16: \"1e308PFLOP/s\""}},
      {"SystemDanglingAccelerator", "dangling reference", {}, cat,
       "cat/" + sys + ":{line}: accelerator: unknown accelerator 'h900' (did you mean 'h200'?); valid: h200",
       {sys, "accelerator:", "accelerator: h900"}},
      {"SystemNameDiffersFromFile", "duplicate ids", {}, cat,
       "cat/" + sys + ":{line}: name: name 'hgx-h100' differs from its file name 'hgx-h200'",
       {sys, "name:", "name: hgx-h100"}},
      {"ModelLayersWrongType", "wrong type", {}, cat,
       "cat/" + mdl + ":{line}: layers: expected an integer, found 'many'", {mdl, "layers:", "layers: many"}},

      // ---- Claude Code JSON ----
      {"CcJsonTruncated", "truncated", {{"t.json", "{\"id\": \"t\", \"block_size\": 64,\n \"requests\": [{\"t\": 0"}},
       "trace stats t.json",
       "t.json:2: invalid JSON: [json.exception.parse_error.101] parse error at line 2, column 22: syntax error "
       "while parsing object - unexpected end of input; expected '}'"},
      {"CcJsonInWrongType", "wrong type",
       {{"t.json", R"({"block_size": 64, "requests": [{"type": "n", "t": 0, "in": "many", "out": 5, "hash_ids": []}]})"}},
       "trace stats t.json", "t.json: requests[0].in: expected an integer, found \"many\""},
      {"CcJsonHashesContradictLength", "hashes vs lengths",
       {{"t.json", R"({"block_size": 64, "requests": [{"type": "n", "t": 0, "in": 200, "out": 5, "hash_ids": [1]}]})"}},
       "trace stats t.json",
       "t.json: requests[0].hash_ids: expected 3 or 4 block ids for 200 input tokens at 64 tokens per block, found 1"},
      {"CcJsonEmptySubagent", "empty session",
       {{"t.json", R"({"block_size": 64, "requests": [{"type": "n", "t": 0, "in": 10, "out": 5, "hash_ids": []},)"
                   R"( {"type": "subagent", "t": 1, "requests": []}]})"}},
       "trace stats t.json", "t.json: requests[1].requests: expected at least one request (an empty session)"},
      // ---- Claude Code CSV ----
      {"CcCsvTruncatedRow", "truncated", {{"r.csv", kCcCsvHead + "t1,root,0,100\n"}}, "trace stats r.csv",
       "r.csv:2: expected 6 fields as in the header, found 4"},
      {"CcCsvNaNThink", "NaN", {{"r.csv", kCcCsvHead + "t1,root,0,100,5,nan\n"}}, "trace stats r.csv",
       "r.csv:2: think_time_s: expected a number, found 'nan'"},
      {"CcCsvDuplicateRequest", "duplicate ids", {{"r.csv", kCcCsvHead + "t1,root,0,100,5,0\nt1,root,0,120,5,1\n"}},
       "trace stats r.csv", "r.csv:3: req_idx: duplicate req_idx 0 of t1/root: expected one row per request"},
      {"CcCsvSubagentWithoutParent", "dangling reference",
       {{"r.csv", kCcCsvHead + "t1,root,0,100,5,0\nt1,root/x/agent_1:Explore,0,50,5,0\n"}}, "trace stats r.csv",
       "r.csv:3: agent_path: parent agent 't1/root/x' has no earlier rows: expected a sub-agent's parent to appear "
       "first"},
      {"CcCsvDanglingPrefixParent", "dangling reference",
       {{"r.csv", kCcCsvBlocksHead + "t1,root,0,128,5,0,0,,2\nt1,root,1,192,5,1,2,root#7,1\n"}}, "trace stats r.csv",
       "r.csv:3: lcp_parent_req: prefix parent 'root#7' is not an earlier request of this trace"},
      {"CcCsvBlocksContradictLength", "hashes vs lengths",
       {{"r.csv", kCcCsvBlocksHead + "t1,root,0,640,5,0,0,,3\n"}}, "trace stats r.csv",
       "r.csv:2: new_blocks: expected 10 block ids for 640 input tokens at 64 tokens per block, found 3 "
       "(lcp_blocks + new_blocks)"},
      {"CcCsvEmptyFile", "empty file", {{"r.csv", ""}}, "trace stats r.csv --format claude-code-csv",
       "r.csv:1: empty file: expected a header row"},
      // ---- Mooncake JSONL ----
      {"MooncakeHugeLength", "huge value",
       {{"m.jsonl", R"({"timestamp": 0, "input_length": 1e30, "output_length": 5, "hash_ids": [0]})" "\n"}},
       "trace stats m.jsonl --format mooncake", "m.jsonl:1: input_length: expected an integer, found 1e+30"},
      {"MooncakeHashesContradictLength", "hashes vs lengths",
       {{"m.jsonl", R"({"timestamp": 0, "input_length": 6758, "output_length": 5, "hash_ids": [0, 1, 2]})" "\n"}},
       "trace stats m.jsonl",
       "m.jsonl:1: hash_ids: expected 13 or 14 block ids for 6758 input tokens at 512 tokens per block, found 3 "
       "(input_length)"},
      {"MooncakeEmptyFile", "empty file", {{"m.jsonl", "\n"}}, "trace stats m.jsonl --format mooncake",
       "m.jsonl: no sessions in the trace: expected at least one request"},
      // ---- Azure CSV ----
      {"AzureBadTimestamp", "wrong type", {{"a.csv", kAzureHead + "yesterday,100,5\n"}}, "trace stats a.csv",
       "a.csv:2: TIMESTAMP: expected a time 'YYYY-MM-DD hh:mm:ss.fraction', found 'yesterday'"},
      {"AzureHeaderOnly", "empty file", {{"a.csv", kAzureHead}}, "trace stats a.csv",
       "a.csv: no sessions in the trace: expected at least one request"},
      // ---- agentsim trace JSONL ----
      {"TraceSpawnParentMissing", "dangling reference",
       {{"t.jsonl", kTraceHead + R"({"id": "a", "turns": [{"in": 10, "out": 5}]})" "\n" +
                        R"({"id": "b", "spawn": {"parent": 5, "after_turn": 0}, "turns": [{"in": 10, "out": 5}]})" "\n"}},
       "trace stats t.jsonl", "t.jsonl:3: spawn.parent: expected an integer in [0, 0], found 5"},
      {"TraceSpawnParentCycle", "cyclic reference",
       {{"t.jsonl", kTraceHead + R"({"id": "a", "spawn": {"parent": 1, "after_turn": 0}, "turns": [{"in": 10, "out": 5}]})" "\n" +
                        R"({"id": "b", "spawn": {"parent": 0, "after_turn": 0}, "turns": [{"in": 10, "out": 5}]})" "\n"}},
       "trace stats t.jsonl",
       "t.jsonl:2: spawn.parent: expected no spawn link on the trace's first record (a parent must come before it)"},
      {"TracePrefixTurnMissing", "dangling reference",
       {{"t.jsonl", kTraceHead + R"({"id": "a", "turns": [{"in": 128, "out": 5, "new": [[0, 2]]}]})" "\n" +
                        R"({"id": "b", "turns": [{"in": 128, "out": 5, "prefix": [0, 3, 2]}]})" "\n"}},
       "trace stats t.jsonl", "t.jsonl:3: turns[0].prefix: expected an integer in [0, 0], found 3"},
      {"TraceBlocksContradictLength", "hashes vs lengths",
       {{"t.jsonl", kTraceHead + R"({"id": "a", "turns": [{"in": 1000, "out": 5, "new": [[0, 2]]}]})" "\n"}},
       "trace stats t.jsonl",
       "t.jsonl:2: turns[0].new: expected 15 or 16 block ids for 1000 input tokens at 64 tokens per block, found 2"},
      {"TraceDuplicateSessionId", "duplicate ids",
       {{"t.jsonl", kTraceHead + R"({"id": "a", "turns": [{"in": 10, "out": 5}]})" "\n" +
                        R"({"id": "a", "turns": [{"in": 10, "out": 5}]})" "\n"}},
       "trace stats t.jsonl", "t.jsonl:3: id: duplicate session id 'a': expected unique ids"},
      {"TraceEmptySession", "empty session", {{"t.jsonl", kTraceHead + R"({"id": "a", "turns": []})" "\n"}},
       "trace stats t.jsonl", "t.jsonl:2: turns: expected at least one turn (an empty session)"},
      {"TraceImportWritesNothing", "truncated",
       {{"t.jsonl", kTraceHead + R"({"id": "a", "turns": [{"in": 10, )" "\n"}},
       "trace import agentsim t.jsonl --out out.jsonl",
       "t.jsonl:2: invalid JSON: [json.exception.parse_error.101] parse error at line 1, column 34: syntax error "
       "while parsing object key - unexpected end of input; expected string literal"},
      // ---- HDF5 trace ----
      {"TraceH5NotHdf5", "wrong type", {{"t.h5", "this is not HDF5\n"}}, "trace stats t.h5 --format agentsim-h5",
       "t.h5: not an HDF5 file"},

      // ---- calibration files (calibrate fit) ----
      {"CalibrationNotHdf5", "wrong type", {{"cal.h5", "not an HDF5 file\n"}}, "calibrate fit cal.h5 --out p.yaml",
       "cal.h5: not an HDF5 file: expected a calibration file written by `agentsim calibrate`"},
      {"CalibrationNoBackend", "missing key", {}, "calibrate fit cal.h5 --out p.yaml",
       "cal.h5: /: missing root attribute 'backend'", {},
       [](const fs::path& dir) { calib::write_calibration_file((dir / "cal.h5").string(), calib::CalibrationFile{}); }},

      // ---- measured runs (validate --measured) ----
      {"MeasuredDuplicateId", "duplicate ids", {{"exp.yaml", kExp}, {"m.csv", kMeasuredHead + kMeasuredOk + kMeasuredOk}},
       "validate exp.yaml --measured m.csv", "m.csv:3: id: duplicate id 'a'"},
      {"MeasuredUnknownSystem", "dangling reference",
       {{"exp.yaml", kExp}, {"m.csv", kMeasuredHead + "a,src,hgx-h2000,llama-3.1-8b,tp=1,1,128,128,1,100,,,,,,\n"}},
       "validate exp.yaml --measured m.csv",
       "m.csv:2: system: unknown system 'hgx-h2000' (did you mean 'hgx-h200'?); valid: …"},
      {"MeasuredNaNConcurrency", "NaN",
       {{"exp.yaml", kExp}, {"m.csv", kMeasuredHead + "a,src,hgx-h200,llama-3.1-8b,tp=1,1,128,128,nan,100,,,,,,\n"}},
       "validate exp.yaml --measured m.csv", "m.csv:2: concurrency: expected a number, found 'nan'"},
      {"MeasuredHugeConcurrency", "huge value",
       {{"exp.yaml", kExp}, {"m.csv", kMeasuredHead + "a,src,hgx-h200,llama-3.1-8b,tp=1,1,128,128,1e12,100,,,,,,\n"}},
       "validate exp.yaml --measured m.csv", "m.csv:2: concurrency: expected a concurrency in [1, 10000000]"},
      {"MeasuredRangeRatioAboveOne", "wrong value",
       {{"exp.yaml", kExp},
        {"m.csv", kMeasuredHead.substr(0, kMeasuredHead.size() - 1) + ",range_ratio\n" +
                      "a,src,hgx-h200,llama-3.1-8b,tp=1,1,128,128,1,100,,,,,,,1.5\n"}},
       "validate exp.yaml --measured m.csv", "m.csv:2: range_ratio: expected a range ratio in (0, 1]"},
      {"MeasuredZeroPrompts", "out of range",
       {{"exp.yaml", kExp},
        {"m.csv", kMeasuredHead.substr(0, kMeasuredHead.size() - 1) + ",prompts\n" +
                      "a,src,hgx-h200,llama-3.1-8b,tp=1,1,128,128,1,100,,,,,,,0\n"}},
       "validate exp.yaml --measured m.csv", "m.csv:2: prompts: expected a prompt count in [1, 1000000000]"},
      {"MeasuredBadPlan", "wrong type",
       {{"exp.yaml", kExp}, {"m.csv", kMeasuredHead + "a,src,hgx-h200,llama-3.1-8b,tp8,1,128,128,1,100,,,,,,\n"}},
       "validate exp.yaml --measured m.csv", "m.csv:2: plan: plan 'tp8': 'tp8' is not key=value (expected e.g. tp=8,ep=8,pp=1,dp=1)"},
  };
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

// Copies a real catalog entry into `root`, replacing the line that starts with patch.key;
// Returns the 1-based number of the replaced line (0 when no patch applies to this file).
int copy_catalog_file(const fs::path& root, const std::string& rel, const CatalogPatch& patch) {
  std::ifstream in(fs::path(AGENTSIM_SOURCE_DIR) / rel);
  std::string text, line;
  int n = 0, patched = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto indent = line.find_first_not_of(' ');
    if (!patched && patch.file == rel && indent != std::string::npos && line.compare(indent, patch.key.size(), patch.key) == 0) {
      line = line.substr(0, indent) + patch.line;
      patched = n;
    }
    text += line + "\n";
  }
  fs::create_directories((root / rel).parent_path());
  std::ofstream(root / rel) << text;
  return patched;
}

class BadInput : public ::testing::TestWithParam<Row> {};

TEST_P(BadInput, ExitsWithCodeTwoAndTheExactMessageAndWritesNothing) {
  const Row& row = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("agentsim_bad_input_" + std::to_string(::getpid()) + "_" + row.name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string expected = row.expected;
  if (row.command.rfind("--root cat ", 0) == 0) {
    for (const std::string rel : {"hwmodels/catalog/accelerators/h200.yaml", "hwmodels/catalog/systems/hgx-h200.yaml",
                                  "workloads/catalog/models/llama-3.1-8b.yaml"}) {
      const int line = copy_catalog_file(dir / "cat", rel, row.patch);
      if (line > 0) expected.replace(expected.find("{line}"), 6, std::to_string(line));
    }
    ASSERT_EQ(expected.find("{line}"), std::string::npos) << "patch key not found: " << row.patch.key;
  }
  for (const auto& [rel, text] : row.files) {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
  }
  if (row.make) row.make(dir);
  const auto before = listing(dir);

  const auto r = test_support::run(row.command, dir);
  EXPECT_EQ(r.code, 2) << r.output;
  const std::string prefix = "agentsim: error: ";
  const auto end = r.output.find('\n', r.output.find(prefix));
  const std::string line = r.output.find(prefix) == std::string::npos
                               ? r.output
                               : r.output.substr(r.output.find(prefix) + prefix.size(), end - r.output.find(prefix) - prefix.size());
  const std::string ellipsis = "…";
  if (expected.size() >= ellipsis.size() && expected.compare(expected.size() - ellipsis.size(), ellipsis.size(), ellipsis) == 0) {
    const std::string head = expected.substr(0, expected.size() - ellipsis.size());
    EXPECT_EQ(line.substr(0, head.size()), head) << r.output;
  } else {
    EXPECT_EQ(line, expected) << r.output;
  }
  EXPECT_EQ(listing(dir), before) << "the command wrote or left files";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& i) { return i.param.name; });

TEST(BadInputCatalogue, HasAtLeastFortyFiveRowsWithDistinctNames) {
  std::set<std::string> names;
  for (const auto& r : rows()) names.insert(r.name);
  EXPECT_EQ(names.size(), rows().size());
  EXPECT_GE(rows().size(), 45u);
}

}  // namespace
}  // namespace agentsim
