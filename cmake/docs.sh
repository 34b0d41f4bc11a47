#!/usr/bin/env bash
# Regenerates the documentation's figures from the tools' own outputs: runs the experiments, the
# validation and the benchmarks, then writes docs/results/*.md (each stating its commit and date)
# and the README's generated blocks. Nothing in docs/results is typed by hand.
#
#   bash cmake/docs.sh [all|options|readoffs|validation|bench|sensitivity|readme] ...
#
# Stages (each runnable alone; `readme` only copies docs/results into README.md and docs/*.md):
#   options      every experiment option, from `agentsim describe`
#   readoffs     the default experiment, the Claude Code example if present, V4 Pro vs V4.1 Flash
#   validation   agentsim validate experiments/validation/validate.yaml --measured … --cv --json
#   bench        bench_event_queue, bench_scale vidur and the one-router scale hour (if built),
#                with the wall times the other stages recorded
#   sensitivity  experiments/sensitivity/sensitivity.sh (docs/results/sensitivity.md), if present
#   readme       fill the <!-- generated:NAME from FILE --> blocks of README.md and docs/*.md
# `all` (the default) runs every stage in that order. Runs go to build/docs-run/ (kept, so that a
# later stage can read an earlier one's timings). AGENTSIM_DOCS_JOBS sets -j (default: nproc);
# AGENTSIM_DOCS_REUSE=1 rewrites the tables from the runs kept there instead of running the tools
# again (for a change to the tables' layout only).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${AGENTSIM_BIN:-$root/build/agentsim}
run_dir=$root/build/docs-run
jobs=${AGENTSIM_DOCS_JOBS:-$(nproc 2>/dev/null || echo 2)}
gen="python3 $root/cmake/docs_tables.py"
mkdir -p "$run_dir" docs/results

need_bin() {
  if [[ ! -x "$bin" ]]; then
    echo "cmake/docs.sh: $bin not found; build first (bash cmake/build.sh)" >&2
    exit 2
  fi
}

# timed NAME CMD...: runs CMD under /usr/bin/time -v, keeps its stdout in NAME.out and the
# wall time, user CPU and peak RSS in NAME.time (read by docs_tables.py).
timed() {
  local name=$1
  shift
  if [[ "${AGENTSIM_DOCS_REUSE:-0}" == 1 && -f "$run_dir/$name.time" && -f "$run_dir/$name.out" ]]; then
    echo "cmake/docs.sh: reusing $run_dir/$name.* (AGENTSIM_DOCS_REUSE=1)" >&2
    return
  fi
  echo "cmake/docs.sh: $*" >&2
  /usr/bin/time -v -o "$run_dir/$name.time" "$@" >"$run_dir/$name.out"
  printf 'command: %s\n' "$*" >>"$run_dir/$name.time"
}

stage_readoffs() {
  need_bin
  [[ "${AGENTSIM_DOCS_REUSE:-0}" == 1 ]] || rm -rf "$run_dir/default" "$run_dir/claude-code" "$run_dir/v4-pro"
  timed default "$bin" run experiments/examples/agentic-v4.1-flash.yaml --out "$run_dir/default" -j "$jobs" --no-run-table
  $gen readoffs "$run_dir/default/readoffs.csv" --title "Default experiment (experiments/examples/agentic-v4.1-flash.yaml)" \
    --command "agentsim run experiments/examples/agentic-v4.1-flash.yaml --out out" --out docs/results/readoffs-default.md
  if [[ -f experiments/examples/agentic-v4.1-flash-claude-code.yaml ]]; then
    timed claude-code "$bin" run experiments/examples/agentic-v4.1-flash-claude-code.yaml --out "$run_dir/claude-code" -j "$jobs" --no-run-table
    $gen readoffs "$run_dir/claude-code/readoffs.csv" --title "Claude Code sessions (experiments/examples/agentic-v4.1-flash-claude-code.yaml)" \
      --command "agentsim run experiments/examples/agentic-v4.1-flash-claude-code.yaml --out out-cc" --out docs/results/readoffs-claude-code.md
  else
    rm -f docs/results/readoffs-claude-code.md
  fi
  timed v4-pro "$bin" run experiments/examples/v4-pro-vs-v4.1-flash.yaml --out "$run_dir/v4-pro" -j "$jobs" --no-run-table \
    --baseline "$run_dir/default"
  $gen compare "$run_dir/default/readoffs.csv" "$run_dir/v4-pro/readoffs.csv" \
    --command "agentsim run experiments/examples/v4-pro-vs-v4.1-flash.yaml --out out-pro --baseline out" \
    --out docs/results/readoffs-v4-pro.md
  local cols=(--column "V4.1 Flash, agentperf profile (default)|$run_dir/default/readoffs.csv")
  [[ -f "$run_dir/claude-code/readoffs.csv" ]] && cols+=(--column "V4.1 Flash, Claude Code trace|$run_dir/claude-code/readoffs.csv")
  cols+=(--column "V4 Pro, agentperf profile|$run_dir/v4-pro/readoffs.csv")
  $gen headline "${cols[@]}" --command "the three runs above" --out docs/results/readoffs-side-by-side.md
}

stage_validation() {
  need_bin
  timed validation "$bin" validate experiments/validation/validate.yaml --measured experiments/validation/ --cv --json -j "$jobs"
  $gen validation "$run_dir/validation.out" \
    --command "agentsim validate experiments/validation/validate.yaml --measured experiments/validation/ --cv --json" \
    --out docs/results/validation.md --fitted-out docs/results/fitted-parameters.md
}

stage_bench() {
  local bdir
  bdir=$(dirname "$bin")/bench
  local args=()
  if [[ -x "$bdir/bench_event_queue" ]] && [[ "${AGENTSIM_DOCS_REUSE:-0}" != 1 || ! -f "$run_dir/event_queue.json" ]]; then
    "$bdir/bench_event_queue" --benchmark_format=json --benchmark_repetitions=3 \
      --benchmark_filter='BM_ScheduleThenPop/1000000|BM_HoldModel/100000' >"$run_dir/event_queue.json"
  fi
  [[ -f "$run_dir/event_queue.json" ]] && args+=(--event-queue "$run_dir/event_queue.json")
  if [[ -x "$bdir/bench_scale" ]]; then
    timed vidur "$bdir/bench_scale" vidur
    args+=(--timing "vidur|Vidur comparison: Llama-3.1-8B on 1 x A100, 10,000 Poisson requests|$run_dir/vidur.time")
    if [[ "${AGENTSIM_DOCS_SCALE:-1}" != 0 ]]; then
      timed scale "$bdir/bench_scale" scale 100000 10008 3600 4096 1
      args+=(--timing "scale|Scale: 100,000 agents, 10,008 GPUs, one router, one simulated hour|$run_dir/scale.time")
    fi
  fi
  local t
  for t in "default|Default experiment (7 systems)" "claude-code|Claude Code example" "v4-pro|V4 Pro vs V4.1 Flash" \
    "validation|Validation, every mapped row, with cross-validation"; do
    if [[ -f "$run_dir/${t%%|*}.time" ]]; then
      args+=(--timing "$t|$run_dir/${t%%|*}.time")
    fi
  done
  $gen performance "${args[@]}" --jobs "$jobs" --out docs/results/performance.md
}

stage_sensitivity() {
  need_bin
  if [[ -f experiments/sensitivity/sensitivity.sh ]]; then
    # Writes docs/results/sensitivity.md itself (its own stamp: command, commit, date).
    bash experiments/sensitivity/sensitivity.sh "$(dirname "$bin")"
  else
    echo "cmake/docs.sh: no experiments/sensitivity/sensitivity.sh in this tree; skipped" >&2
  fi
}

stage_options() {
  need_bin
  "$bin" describe >"$run_dir/describe.out"
  $gen options "$run_dir/describe.out" --command "agentsim describe" --out docs/results/options.md
}

stage_readme() {
  $gen readme README.md docs/*.md
}

stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(all)
for s in "${stages[@]}"; do
  case "$s" in
    all) stage_options; stage_readoffs; stage_validation; stage_sensitivity; stage_bench; stage_readme ;;
    options | readoffs | validation | bench | sensitivity | readme) "stage_$s" ;;
    *) echo "cmake/docs.sh: unknown stage '$s' (all, options, readoffs, validation, bench, sensitivity, readme)" >&2; exit 2 ;;
  esac
done
