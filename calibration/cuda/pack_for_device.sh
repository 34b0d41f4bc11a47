#!/usr/bin/env bash
# Builds agentsim for a GPU machine that lacks its build dependencies and packs what
# run_on_device.sh needs into DIR (default .devrun, which git should ignore):
#   DIR/bin/agentsim  CUDA backend on, MPI and NCCL off, libstdc++ and libgcc static
#   DIR/lib/          the binary's shared libraries but glibc's and CUDA's (yaml-cpp, HDF5, ...)
#   DIR/glibc/        this host's loader and C library (run_on_device.sh's fallback)
# Needs nvcc (CUDA 13, as the machine's cuBLASLt) on this host. Usage: pack_for_device.sh [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/.devrun}
build=$root/build-device
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DAGENTSIM_BUILD_TESTS=OFF -DAGENTSIM_BUILD_BENCH=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DAGENTSIM_NCCL_LIBRARY=AGENTSIM_NCCL_LIBRARY-NOTFOUND \
  "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc" > /dev/null
grep -q '^AGENTSIM_HAVE_CUDA:INTERNAL=ON' "$build/CMakeCache.txt" || { echo "nvcc not found: no CUDA backend" >&2; exit 2; }
cmake --build "$build" -j"$(nproc)" --target agentsim
rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib" "$dir/glibc"
cp "$build/agentsim" "$dir/bin/" && strip "$dir/bin/agentsim"
ldd "$build/agentsim" | awk '/=>/ {print $1, $3}' | while read -r name path; do
  case $name in
    libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|libresolv.so.2) cp -L "$path" "$dir/glibc/" ;;
    libcublasLt*|libcublas.*|libcuda.so*|libnccl*) ;;  # the machine's own (driver, CUDA 13)
    *) cp -L "$path" "$dir/lib/" ;;
  esac
done
cp -L /lib64/ld-linux-x86-64.so.2 "$dir/glibc/"
du -sh "$dir"
