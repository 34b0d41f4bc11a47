#!/usr/bin/env bash
# The README's first command: install, build, run the default experiment into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/build.sh
./build/agentsim run experiments/examples/agentic-llama70b-h200.yaml --out out
