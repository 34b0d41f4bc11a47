#!/usr/bin/env bash
# clang-tidy with the checks in .clang-tidy, every finding an error, over the C++ sources changed
# by the last commit (default), since a given revision (`cmake/tidy.sh REV`), or all of them
# (`cmake/tidy.sh --all`). The build compiles sources in unity batches, so clang-tidy gets each
# source's own command from a per-file tree configured (not built) in build-tidy/.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy not installed (apt install clang-tidy)" >&2; exit 1; }
cmake -S . -B build-tidy -DCMAKE_BUILD_TYPE=Release -DAGENTSIM_WERROR=ON -DAGENTSIM_UNITY=OFF >/dev/null
if [ "${1:-}" = "--all" ]; then
  mapfile -t files < <(git ls-files '*.cpp' | grep -v '^tests/fuzz/' | grep -v '^calibration/cuda/')
else
  base=${1:-HEAD~1}
  if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    echo "tidy: no revision $base (a shallow or one-commit clone): nothing to compare with"; exit 0
  fi
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- '*.cpp' | grep -v '^tests/fuzz/' | grep -v '^calibration/cuda/' || true)
fi
# Only sources the build compiles (compile_commands.json names them).
keep=()
for f in "${files[@]}"; do
  grep -q "\"file\": \"$PWD/$f\"" build-tidy/compile_commands.json && keep+=("$f")
done
echo "tidy: ${#keep[@]} file(s)"
[ ${#keep[@]} -eq 0 ] && exit 0
jobs=$(nproc 2>/dev/null || echo 2)
printf '%s\n' "${keep[@]}" | xargs -P "$jobs" -n 4 clang-tidy -p build-tidy --quiet --warnings-as-errors='*' \
  --extra-arg=-Wno-unknown-warning-option
