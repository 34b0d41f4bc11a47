#!/usr/bin/env bash
# The README's second command (and CI's): install, build, run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build -j "$jobs" --output-on-failure
