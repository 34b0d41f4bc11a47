#include "calibration/measured_names.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <regex>

namespace agentsim::calib {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}
bool starts(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
bool has(const std::string& s, std::string_view p) { return s.find(p) != std::string::npos; }
Mapped yes(std::string v) { return Mapped{std::move(v), ""}; }
// A run of digits as an int, saturating at INT_MAX: a transcribed row's overlong number becomes a
// value the plan or drafter checks refuse with their reason, never an uncaught std::out_of_range.
int digits_to_int(const std::string& digits) {
  long long v = 0;
  for (char c : digits) {
    v = std::min<long long>(v * 10 + (c - '0'), std::numeric_limits<int>::max());
  }
  return static_cast<int>(v);
}
Mapped no(std::string why) { return Mapped{"", std::move(why)}; }

}  // namespace

Mapped map_model(std::string_view text) {
  const std::string t = lower(text);
  // A name followed by nothing, a space (a parenthesised checkpoint) or "-0528".
  const auto is = [&](std::string_view name) {
    const std::string n(name);
    return t == n || starts(t, n + " ") || t == n + "-0528" || starts(t, n + "-0528 ") || t == n + "-instruct" ||
           t == n + "-fp8";
  };
  if (is("deepseek-r1")) return yes("deepseek-r1");
  if (is("deepseek-v3")) return yes("deepseek-v3");
  if (is("deepseek-v3.2")) return yes("deepseek-v3.2");
  if (is("gpt-oss-120b")) return yes("gpt-oss-120b");
  // Llama 3.3 70B has Llama 3.1 70B's architecture (only the post-training differs).
  if (is("llama-3.3-70b") || is("llama-3.1-70b")) return yes("llama-3.1-70b");
  if (is("llama-3.1-8b")) return yes("llama-3.1-8b");
  if (is("qwen3-235b-a22b")) return yes("qwen3-235b-a22b");
  if (is("glm-5.2")) return yes("glm-5.2");
  if (is("glm-4.5")) return yes("glm-4.5");
  if (is("kimi-k2")) return yes("kimi-k2");
  return no("model '" + std::string(text) + "' has no catalog entry");
}

Mapped map_hardware(std::string_view text) {
  const std::string t = lower(text);
  static const std::pair<std::string_view, std::string_view> kTable[] = {
      {"a100", "hgx-a100"},      {"h100", "hgx-h100"},     {"h200", "hgx-h200"},    {"b200", "hgx-b200"},
      {"b300", "hgx-b300"},      {"gb200", "gb200-nvl72"}, {"gb300", "gb300-nvl72"}, {"mi300x", "mi300x-8"},
      {"mi325x", "mi325x-8"},    {"mi355x", "mi355x-8"}};
  for (const auto& [gpu, system] : kTable) {
    if (t == gpu || starts(t, std::string(gpu) + " ")) return yes(std::string(system));
  }
  // serving-points-2 already names catalog systems.
  for (const auto& [gpu, system] : kTable) {
    if (t == system) return yes(std::string(system));
  }
  return no("hardware '" + std::string(text) + "' has no catalog system");
}

PlanDegrees plan_degrees(std::string_view text) {
  PlanDegrees d;
  static const std::regex kItem(R"((tp|ep|dp|pp|a2a)=(\d+))");
  const std::string t(text);
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kItem); it != std::sregex_iterator(); ++it) {
    const int v = digits_to_int((*it)[2].str());
    const std::string k = (*it)[1].str();
    if (k == "a2a") {
      d.all_to_all = v != 0;
      continue;
    }
    (k == "tp" ? d.tp : k == "ep" ? d.ep : k == "dp" ? d.dp : d.pp) = v;
  }
  return d;
}

std::string canonical_plan(std::string_view text) {
  const PlanDegrees d = plan_degrees(text);
  std::string out = "tp=" + std::to_string(d.tp) + ",ep=" + std::to_string(d.ep);
  if (d.dp != 1) out += ",dp=" + std::to_string(d.dp);
  if (d.pp != 1) out += ",pp=" + std::to_string(d.pp);
  if (!d.all_to_all) out += ",a2a=0";
  return out;
}

Mapped map_plan(std::string_view text) {
  std::string t(text);
  // Attention and experts stated apart ("TP8 attention, MoE TP4 EP2"; "TP8 attention; MoE mixed
  // TP/EP (TP8 EP4 at this stage)"): attention TP over n ranks, the experts over m of them. The
  // expert part's "TPa EPm" is either the experts' split (a x m = n) or the benchmark's --tp n --ep m.
  static const std::regex kSplit(R"(TP(\d+) attention[,;] MoE (.*))");
  static const std::regex kExperts(R"(TP(\d+) EP(\d+))");
  if (std::smatch m; std::regex_match(t, m, kSplit)) {
    const int n = digits_to_int(m[1].str());
    const std::string moe = m[2].str();
    std::smatch e;
    int a = 0, ep = 0;
    for (auto it = moe.cbegin(); std::regex_search(it, moe.cend(), e, kExperts); it = e.suffix().first) {
      a = digits_to_int(e[1].str()), ep = digits_to_int(e[2].str());
    }
    if (ep > 0 && n % ep == 0 && (static_cast<long long>(a) * ep == n || a == n)) {
      return yes(canonical_plan("tp=" + std::to_string(n) + ",ep=" + std::to_string(ep)));
    }
    if (ep == 0) return no("plan '" + t + "': the experts' degrees are not stated as TPa EPm");
    return no("plan '" + t + "': the experts' TP" + std::to_string(a) + " EP" + std::to_string(ep) +
              " is neither a split of TP" + std::to_string(n) + " nor its EP");
  }
  // Engine settings after the degrees ("TP8 EP2, max_batch_size 1", "TP8, triton attention") do not
  // change the plan; ", attention DP" is attention data parallelism (states_attention_dp).
  const bool dpa = states_attention_dp(t);
  if (const auto comma = t.find(','); comma != std::string::npos) t = t.substr(0, comma);
  static const std::regex kTp(R"(TP(\d+)(?: EP(\d+))?( DPA)?(?: \(no DP attention\))?)");
  static const std::regex kDep(R"(DEP(\d+))");
  std::smatch m;
  if (std::regex_match(t, m, kDep)) return yes(canonical_plan("dp=" + m[1].str() + ",ep=" + m[1].str()));
  if (std::regex_match(t, m, kTp)) {
    const std::string n = m[1].str();
    const std::string ep = m[2].matched ? m[2].str() : "1";
    // Attention data parallel over the TP ranks, the experts over ep of them.
    if (dpa) return yes(canonical_plan("dp=" + n + ",ep=" + ep));
    return yes(canonical_plan("tp=" + n + ",ep=" + ep));
  }
  if (starts(lower(t), "disagg")) return no("prefill/decode-disaggregated plan '" + t + "' (map_disaggregated reads it)");
  if (t.empty()) return no("plan not stated");
  return no("plan '" + t + "' is not one replica's TPn [EPm] [DPA] / DEPn");
}

bool states_attention_dp(std::string_view text) {
  std::string t(text);
  bool dpa = false;
  if (const auto comma = t.find(','); comma != std::string::npos) {
    dpa = has(lower(t.substr(comma)), "attention dp");
    t = t.substr(0, comma);
  }
  static const std::regex kDegrees(R"((?:DEP\d+|TP\d+(?: EP\d+)? DPA(?: .*)?))");
  return dpa || std::regex_match(t, kDegrees);
}

DisaggregatedPlan map_disaggregated(std::string_view text) {
  const std::string t(text);
  DisaggregatedPlan d;
  static const std::regex kDisagg(R"(disagg P (\d+)x\((.+)\) \+ D (\d+)x\((.+)\))");
  std::smatch m;
  if (!std::regex_match(t, m, kDisagg)) {
    d.plan = no("prefill/decode-disaggregated plan '" + t + "' is not 'disagg P Nx(PLAN) + D Mx(PLAN)'");
    return d;
  }
  const Mapped prefill = map_plan(m[2].str()), decode = map_plan(m[4].str());
  if (!prefill.ok()) {
    d.plan = no("prefill " + prefill.reason);
  } else if (!decode.ok()) {
    d.plan = no("decode " + decode.reason);
  } else {
    d.plan = decode;
    d.prefill_plan = prefill.value;
    d.prefill_replicas = digits_to_int(m[1].str());
    d.decode_replicas = digits_to_int(m[3].str());
    d.prefill_attention_dp = states_attention_dp(m[2].str());
    d.decode_attention_dp = states_attention_dp(m[4].str());
    if (d.prefill_replicas < 1 || d.decode_replicas < 1) {
      d.plan = no("prefill/decode-disaggregated plan '" + t + "' names no replica of a role");
    } else if (d.prefill_replicas > 1'000'000 || d.decode_replicas > 1'000'000) {
      d.plan = no("prefill/decode-disaggregated plan '" + t + "' names more than 1,000,000 replicas of a role");
    }
    if (!d.plan.ok()) d.prefill_replicas = d.decode_replicas = 0;
  }
  return d;
}

RoleRun map_role_run(std::string_view plan_text, std::string_view notes) {
  const std::string t(plan_text), n(notes);
  RoleRun out;
  out.scenario = t.rfind("prefill-only", 0) == 0 ? "prefill-only" : t.rfind("decode-only", 0) == 0 ? "decode-only" : "";
  static const std::regex kNodesEp(R"((\d+) nodes EP(\d+))");
  static const std::regex kPrefillBatch(R"((\d+) tokens/device batch)");
  static const std::regex kDecodeBatch(R"(Batch size (\d+) per device)", std::regex::icase);
  std::smatch m;
  const std::string where = "a " + (out.scenario.empty() ? std::string("one-role") : out.scenario) +
                            " measurement of one role ('" + t + "')";
  if (out.scenario.empty()) {
    out.reason = where + ": not prefill-only or decode-only";
  } else if (!std::regex_search(t, m, kNodesEp)) {
    out.reason = where + ": states no 'N nodes EPm' (its replica's EP degree over nodes)";
  } else if (t.find("DP attention") == std::string::npos) {
    out.reason = where + ": states no DP attention (the attention's degrees beside EP)";
  } else {
    const int ep = digits_to_int(m[2].str());
    std::smatch b;
    const bool prefill = out.scenario == "prefill-only";
    if (!std::regex_search(n, b, prefill ? kPrefillBatch : kDecodeBatch)) {
      out.reason = where + ": the notes state no batch per device ('" +
                   (prefill ? std::string("N tokens/device batch") : std::string("Batch size N per device")) + "')";
    } else if (ep < 1 || ep > 1'000'000) {
      out.reason = where + ": EP degree out of range";
    } else {
      out.plan = "tp=1,ep=" + std::to_string(ep) + ",dp=" + std::to_string(ep);
      out.batch_per_device = digits_to_int(b[1].str());
      static const std::regex kTbo(R"(\bTBO\b)");
      out.two_batch_overlap = std::regex_search(t, kTbo);
      if (out.batch_per_device < 1) out.reason = where + ": batch per device out of range";
    }
  }
  if (!out.reason.empty()) out.plan.clear(), out.batch_per_device = 0;
  return out;
}

Mapped map_engine(std::string_view text) {
  const std::string t = lower(text);
  if (has(t, "sglang")) return yes("sglang");
  if (has(t, "tensorrt-llm") || has(t, "tensorrtllm") || has(t, "trt-llm") || has(t, "trtllm")) return yes("trtllm");
  if (has(t, "vllm")) return yes("vllm");
  // AMD's ATOM: InferenceX records its image ("rocm/atom:...") or "AMD ATOM".
  static const std::regex kAtom(R"(\batom\b)");
  if (std::regex_search(t, kAtom)) return yes("atom");
  if (t.empty()) return no("engine not stated");
  return no("engine '" + std::string(text) + "' has no host-overhead model (" + std::string(kHostModelEngines) + ")");
}

bool id_names_framework(std::string_view id, std::string_view framework) {
  return id.find("-" + std::string(framework) + "-") != std::string_view::npos;
}

Mapped map_speculative(std::string_view text) {
  const std::string t = lower(text);
  if (t == "none") return yes("0");
  if (starts(t, "mtp") || starts(t, "eagle mtp")) return yes("1");
  if (t.empty()) return no("speculative method not stated");
  return no("speculative method '" + std::string(text) + "' is not the model's MTP drafter");
}

int stated_draft_tokens(std::string_view text) {
  static const std::regex kNextn(R"(nextn\s*=\s*(\d+))", std::regex::icase);
  const std::string t(text);
  std::smatch m;
  return std::regex_search(t, m, kNextn) ? digits_to_int(m[1].str()) : 0;
}

Precision map_precision(std::string_view text) {
  const std::string t = lower(text);
  Precision p;
  if (has(t, "int4")) {
    p.reason = "precision '" + std::string(text) + "': INT4 weights are not modelled";
    return p;
  }
  if (has(t, "fp4")) {
    // NVFP4 / MXFP4 checkpoints quantise the (routed) FFN weights, each with its own block scales.
    p.experts = has(t, "nvfp4") ? "nvfp4" : has(t, "mxfp4") ? "mxfp4" : "fp4";
  } else if (has(t, "fp8")) {
    p.weights = p.experts = "fp8";
  } else if (starts(t, "bf16") && !has(t, "not stated")) {
    p.weights = p.experts = "bf16";
  }
  if (has(t, "fp8 kv")) p.kv = "fp8";
  return p;
}

bool is_fp4_format(std::string_view format) { return format == "fp4" || format == "nvfp4" || format == "mxfp4"; }

}  // namespace agentsim::calib
