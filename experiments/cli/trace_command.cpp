// agentsim trace import|stats|fit
#include <cstdio>
#include <memory>

#include "sim/core/atomic_write.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/config/generator_yaml.hpp"
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
  st->add_option("file", args->in, "trace file (or folder of Claude Code JSON files)")->required();
  st->add_option("--format", args->format, "input format (default: detected)");
  st->add_flag("--json", args->json, "print JSON");
  st->add_flag("--skip-bad", args->skip_bad, "skip malformed lines and report how many");
  CLI::App* fit = sub->add_subcommand("fit", "fit the synthetic generator to a trace");
  fit->add_option("file", args->in, "trace file")->required();
  fit->add_option("--format", args->format, "input format (default: detected)");
  fit->add_option("--out", args->out, "generator YAML")->required();

  return Command{sub, [args, imp, st, fit]() {
    // A per-conversation summary has totals only: stats reads it directly.
    if (st->parsed() && (args->format.empty() ? wl::detect_trace_format(args->in) : args->format) ==
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
    const wl::Trace trace = exp::load_trace_file(args->format, args->in, opt, &rep);
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
