#!/usr/bin/env bash
# Installs the Debian 12 packages agentsim needs, only those missing; idempotent and quiet when all are present.
set -euo pipefail
pkgs=(
  g++ cmake make pkg-config
  libboost-graph-dev libeigen3-dev libyaml-cpp-dev libhdf5-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  nlohmann-json3-dev
  libopenmpi-dev openmpi-bin   # multi-node sweeps (mpirun -n K agentsim run ...)
  chromium                     # renders report.html in the browser test
  clang libclang-rt-14-dev     # the sanitizer + libFuzzer build of the test command (cmake/sanitize.sh)
  clang-tidy                   # cmake/tidy.sh: the checks in .clang-tidy on changed sources
)
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "agentsim: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
