// agentsim trace import|stats|fit
#include <algorithm>
#include <cstdio>
#include <memory>

#include "sim/core/atomic_write.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/config/generator_yaml.hpp"
#include "experiments/config/workload_config.hpp"
#include "sim/core/decode_helpers.hpp"
#include "sim/core/error.hpp"
#include "workloads/sessions/context_limit.hpp"
#include "workloads/sessions/generator_fit.hpp"
#include "experiments/traceio/trace_files.hpp"
#include "workloads/sessions/claude_code_summary.hpp"
#include "workloads/sessions/trace_formats.hpp"
#include "workloads/sessions/trace_stats.hpp"

namespace agentsim::cli {

Command add_trace_command(CLI::App& app, const Context&) {
  struct Args {
    std::string format;
    std::string in;
    std::string out;
    bool skip_bad = false;
    bool json = false;
    std::string profile;
    std::string generator;
    int sessions = 10000;
    std::uint64_t seed = 42;
    long long max_context = 0;
    double truncated_fraction = 0.5;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("trace", "import, summarise and fit session traces");
  sub->require_subcommand(1);
  CLI::App* imp = sub->add_subcommand("import", "convert FORMAT IN to the native trace (JSON Lines, or HDF5 for an .h5 name)");
  imp->add_option("format", args->format, "agentsim, agentsim-h5, azure, claude-code-csv, claude-code-json (file or folder), mooncake")
      ->required();
  imp->add_option("in", args->in, "input trace")->required();
  imp->add_option("--out", args->out, "output .jsonl (JSON Lines) or .h5 (HDF5)")->required();
  imp->add_flag("--skip-bad", args->skip_bad, "skip malformed lines and report how many");
  CLI::App* st = sub->add_subcommand("stats", "print a trace's statistics");
  st->add_option("file", args->in, "trace file (or folder of Claude Code JSON files); or give --profile/--generator");
  st->add_option("--format", args->format, "input format (default: detected)");
  st->add_option("--profile", args->profile, "statistics of sessions generated from a named profile (e.g. agentperf)");
  st->add_option("--generator", args->generator, "statistics of sessions generated from a generator YAML");
  st->add_option("--sessions", args->sessions, "sessions to generate (default 10000)")->check(CLI::Range(1, 10'000'000));
  st->add_option("--seed", args->seed, "generator seed (default 42)");
  st->add_option("--max-context", args->max_context,
                 "truncate turns over this many tokens as a harness does (drop the oldest turns) and count them")
      ->check(CLI::Range(2LL, 1'000'000'000LL));
  st->add_option("--truncated-fraction", args->truncated_fraction, "with --max-context: prompt after a truncation, share of the limit (default 0.5)")
      ->check(CLI::Range(0.01, 1.0));
  st->add_flag("--json", args->json, "print JSON");
  st->add_flag("--skip-bad", args->skip_bad, "skip malformed lines and report how many");
  CLI::App* fit = sub->add_subcommand("fit", "fit the synthetic generator to a trace");
  fit->add_option("file", args->in, "trace file")->required();
  fit->add_option("--format", args->format, "input format (default: detected)");
  fit->add_option("--out", args->out, "generator YAML")->required();

  return Command{sub, [args, imp, st, fit]() {
    // A per-conversation summary has totals only: stats reads it directly.
    if (st->parsed() && !args->in.empty() && (args->format.empty() ? wl::detect_trace_format(args->in) : args->format) ==
                            "claude-code-summary") {
      const auto s = wl::read_claude_code_summary(args->in);
      std::fputs(args->json ? wl::summary_stats_json(s).c_str()
                            : ("trace: " + args->in + "\n" + wl::format_summary_stats(s)).c_str(),
                 stdout);
      return 0;
    }
    wl::ImportOptions opt;
    opt.skip_bad = args->skip_bad;
    wl::ImportReport rep;
    const bool generated = st->parsed() && (!args->profile.empty() || !args->generator.empty());
    if (st->parsed() && generated == !args->in.empty()) {
      throw core::Error("trace stats: give a trace file, or --profile or --generator (one of them)");
    }
    if (!args->profile.empty() && !args->generator.empty()) throw core::Error("trace stats: give --profile or --generator, not both");
    if (!st->parsed() && args->in.empty()) throw core::Error("trace: expected a trace file");
    wl::Trace trace;
    if (generated) {
      if (!args->profile.empty()) {
        const auto names = exp::profile_names();
        if (std::find(names.begin(), names.end(), args->profile) == names.end()) {
          throw core::Error(core::unknown_name_message("session profile", args->profile, names));
        }
      }
      const wl::GeneratorConfig cfg =
          args->profile.empty() ? exp::load_generator_yaml(args->generator) : exp::load_profile(args->profile);
      trace = wl::generate_sessions(cfg, args->sessions, args->seed);
      args->in = args->profile.empty() ? args->generator : "profile " + args->profile;
      args->in += " (" + std::to_string(args->sessions) + " sessions, seed " + std::to_string(args->seed) + ")";
    } else {
      trace = exp::load_trace_file(args->format, args->in, opt, &rep);
    }
    if (st->parsed() && args->max_context > 0) {
      if (args->max_context <= wl::shortest_prompt_tokens(trace)) {
        throw core::Error("--max-context " + std::to_string(args->max_context) +
                          " is not above the trace's shortest prompt (" + std::to_string(wl::shortest_prompt_tokens(trace)) +
                          " tokens): every turn would be cut");
      }
      wl::apply_context_limit(trace, args->max_context, args->truncated_fraction);
    }
    if (rep.lines_skipped > 0) {
      std::fprintf(stderr, "agentsim: skipped %lld malformed line(s); first: %s\n", rep.lines_skipped,
                   rep.first_error.c_str());
    }
    if (imp->parsed()) {
      exp::save_trace_file(trace, args->out);
      std::printf("wrote %s: %zu sessions, %zu turns (%lld skipped)\n", args->out.c_str(), trace.sessions.size(),
                  trace.turn_count(), rep.lines_skipped);
    } else if (st->parsed()) {
      const auto s = wl::compute_stats(trace);
      if (args->json) {
        std::fputs(wl::stats_json(s).c_str(), stdout);
      } else {
        std::printf("trace: %s\n%s", args->in.c_str(), wl::format_stats(s).c_str());
      }
    } else if (fit->parsed()) {
      const auto cfg = wl::fit_generator(trace);
      core::write_file_atomically(args->out, exp::generator_yaml(cfg, "fitted by agentsim trace fit to " + args->in));
      std::printf("wrote %s\n", args->out.c_str());
    }
    return 0;
  }};
}

}  // namespace agentsim::cli
