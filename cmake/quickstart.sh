#!/usr/bin/env bash
# The README's first command: install, build, run the default experiment into out/
# (DeepSeek V4.1 Flash on seven system types; prints the read-off table).
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/build.sh
./build/agentsim run experiments/examples/agentic-v4.1-flash.yaml --out out --no-run-table
