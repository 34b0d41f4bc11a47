#!/usr/bin/env bash
# Installs missing Debian packages, then configures and builds into build/ (warnings are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install_deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAGENTSIM_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
