#!/usr/bin/env bash
# The sanitizer half of the test command: one clang build (build-fuzz/) with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer coverage; the whole test suite under it; then a short
# time-boxed run of every fuzz target (seconds per target: $1, default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install_deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1 with line tables: sanitizer reports keep file:line, and the build stays short on 2 cores.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DAGENTSIM_SANITIZE=ON -DAGENTSIM_FUZZ=ON -DAGENTSIM_BUILD_BENCH=OFF -DAGENTSIM_CUDA=OFF \
  "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$jobs"
supp=$PWD/cmake/sanitizers
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=suppressions=$supp/ubsan.supp:print_stacktrace=1:halt_on_error=1
ctest --test-dir build-fuzz -j "$jobs" --output-on-failure --timeout 600
BUILD_DIR=$PWD/build-fuzz bash cmake/fuzz.sh "${1:-10}"
