#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build, time-boxed; builds nothing.
#   cmake/fuzz.sh [seconds_per_target]     (default 60; BUILD_DIR=build-fuzz; FUZZ_JOBS=nproc targets at once)
# Each target starts from a temporary copy of its seed corpus plus its regression
# inputs (the repository is never modified) and its dictionary where one exists.
# Prints one line per target with the executions run; exits non-zero if any target
# crashed, leaked, hit undefined behaviour or timed out, naming the input that did it.
set -u
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
fuzz_dir=$root/tests/fuzz
bin_dir=$build/tests/fuzz
targets=$(find "$bin_dir" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x 2>/dev/null | sort)
if [ -z "$targets" ]; then
  echo "fuzz.sh: no fuzz targets in $bin_dir (configure with -DAGENTSIM_FUZZ=ON and build first)" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/agentsim-fuzz.XXXXXX")
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
# One target: writes its result line to $work/NAME/result and exits 1 if it failed.
run_target() {
  local exe=$1 target name corpus log start rc elapsed execs crash result
  target=$(basename "$exe")
  name=${target#fuzz_}
  corpus=$work/$name/corpus
  mkdir -p "$corpus" "$work/$name/artifacts"
  [ -d "$fuzz_dir/corpus/$name" ] && cp -R "$fuzz_dir/corpus/$name/." "$corpus/"
  local seeds=() dict=()
  [ -d "$fuzz_dir/regressions/$name" ] && seeds+=("$fuzz_dir/regressions/$name")
  [ -f "$fuzz_dir/$name.dict" ] && dict=(-dict="$fuzz_dir/$name.dict")
  log=$work/$name/log.txt
  start=$(date +%s)
  "$exe" "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/$name/artifacts/" >"$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    crash=$(find "$work/$name/artifacts" -type f | head -1)
    result="FAILED (exit $rc): input ${crash:-none written}; log $log"
  fi
  printf '%-28s %12s %8s  %s\n' "$target" "${execs:-?}" "$elapsed" "$result" >"$work/$name/result"
  [ $rc -eq 0 ]
}
printf '%-28s %12s %8s  %s\n' target executions seconds result
# $jobs targets at a time; results are printed in target order whatever finishes first.
for exe in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$exe" &
done
wait
failed=0
for exe in $targets; do
  name=$(basename "$exe"); name=${name#fuzz_}
  cat "$work/$name/result"
  grep -q ' ok$' "$work/$name/result" || failed=1
done
if [ $failed -ne 0 ]; then
  echo "fuzz.sh: a target failed; its log and crashing input are kept under $work" >&2
  exit 1
fi
rm -rf "$work"
