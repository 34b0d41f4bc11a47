#!/usr/bin/env bash
# Runs the CUDA calibration suite on a GPU machine that has the NVIDIA driver and CUDA 13's
# cuBLASLt but none of agentsim's build dependencies. It takes an agentsim built elsewhere
# (CUDA backend on, MPI and NCCL off, libstdc++ static) and the shared libraries it needs:
#
#   DIR/bin/agentsim   the binary
#   DIR/lib/           its non-glibc libraries (yaml-cpp, HDF5 and theirs), from the build host
#   DIR/glibc/         the build host's loader and C library, used only if the machine's own fail
#
# and writes OUTDIR/cuda-quick.h5 (--quick), OUTDIR/cuda-full.h5 (full grid), OUTDIR/nvidia-smi.txt
# and a log. Usage: calibration/cuda/run_on_device.sh DIR OUTDIR
set -u
dir=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || log "nvidia-smi failed"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >> "$out/nvidia-smi.txt" 2>&1 || true
head -3 /etc/os-release 2>/dev/null; ldd --version 2>/dev/null | head -1

# cuBLASLt (CUDA 13) and the driver's libcuda, wherever this image keeps them.
find_dir() {
  local f
  f=$(find /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets /usr/local/nvidia /usr/lib/x86_64-linux-gnu \
           /opt /usr/local/lib -name "$1" 2>/dev/null | head -1)
  [ -n "$f" ] && dirname "$f"
}
cublas_dir=$(find_dir 'libcublasLt.so.13')
cuda_dir=$(find_dir 'libcuda.so.1')
log "cublasLt: ${cublas_dir:-not found}; libcuda: ${cuda_dir:-not found}"
[ -n "$cublas_dir" ] || { log "no libcublasLt.so.13 on this machine"; exit 3; }

# Mode 1: the machine's loader and C library; mode 2: the build host's.
run1=(env "LD_LIBRARY_PATH=$dir/lib:$cublas_dir:${cuda_dir:-}" "$dir/bin/agentsim")
run2=("$dir/glibc/ld-linux-x86-64.so.2" --library-path "$dir/glibc:$dir/lib:$cublas_dir:${cuda_dir:-}" "$dir/bin/agentsim")
run=("${run1[@]}")
if ! "${run[@]}" calibrate --list-backends; then
  log "the machine's C library cannot run it; using the build host's"
  LD_LIBRARY_PATH="$dir/lib:$cublas_dir" ldd "$dir/bin/agentsim" | grep -i 'not found'
  run=("${run2[@]}")
  "${run[@]}" calibrate --list-backends || { log "neither loader runs agentsim"; exit 4; }
fi

log "quick suite"
timeout 150 "${run[@]}" calibrate --backend cuda --quick --out "$out/cuda-quick.h5"; log "quick exit $?"
log "full suite"
timeout "${FULL_TIMEOUT_S:-330}" "${run[@]}" calibrate --backend cuda --out "$out/cuda-full.h5"; log "full exit $?"
nvidia-smi -q -d CLOCK,POWER >> "$out/nvidia-smi.txt" 2>&1 || true
ls -l "$out"
