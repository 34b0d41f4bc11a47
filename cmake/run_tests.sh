#!/usr/bin/env bash
# The README's second command (and CI's): install, build, run the whole test suite and clang-tidy on
# the last commit's sources; then the same
# suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang) and a short run of every fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build -j "$jobs" --output-on-failure
bash cmake/tidy.sh   # clang-tidy (.clang-tidy's checks, findings are errors) on the last commit's C++ sources
bash cmake/sanitize.sh "${AGENTSIM_FUZZ_SECONDS:-10}"
