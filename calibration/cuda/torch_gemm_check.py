#!/usr/bin/env python3
"""Times the dense GEMMs of DeepSeek-R1 and Llama-3.1-70B at tensor parallelism 8 on one GPU, in
BF16 and in the FP8 forms PyTorch's _scaled_mm offers (per-tensor, per-row, and 1x128 / 128x128
blocks where this build supports them), each call replayed from a CUDA graph with its weights
rotated through more copies than the L2 holds (as a decode step meets each layer's weights once).

Writes one calibration file per form, in agentsim's layout (docs/calibration.md, "The calibration
file"): root string attributes (backend "torch", launch "graph", device, driver, date, ...) and a
`gemm` table of float64 columns m, n, k, dtype_bits, weight_scale_bytes, flops,
achieved_flops_per_s, time_s, held_out. `agentsim calibrate check FILE PROFILE` then prices every
row with a profile's tables at the graph-replay launch floor.

Usage (on the GPU machine): python3 calibration/cuda/torch_gemm_check.py OUTDIR
Needs torch and h5py; a form this build cannot run is reported and skipped.
"""
import math
import sys

import torch

from device_timing import graph_time_s, run_attributes, write_calibration_file

# (model, GEMM, n, k) per GPU at TP 8: DeepSeek-R1's MLA projections (q_a and kv_a replicated),
# its dense layers' MLP and its shared expert; Llama-3.1-70B's four.
SHAPES = [
    ("deepseek-r1", "q_a_proj", 1536, 7168),
    ("deepseek-r1", "kv_a_proj", 576, 7168),
    ("deepseek-r1", "q_b_proj", 3072, 1536),
    ("deepseek-r1", "kv_b_proj", 4096, 512),
    ("deepseek-r1", "o_proj", 7168, 2048),
    ("deepseek-r1", "dense_gate_up", 4608, 7168),
    ("deepseek-r1", "dense_down", 7168, 2304),
    ("llama-3.1-70b", "qkv_proj", 1280, 8192),
    ("llama-3.1-70b", "o_proj", 8192, 1024),
    ("llama-3.1-70b", "gate_up", 7168, 8192),
    ("llama-3.1-70b", "down", 8192, 3584),
]
MS = [1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096]
ROTATE_BYTES = 256 << 20  # weights cycled per graph replay: several times the 50-60 MB L2
FP8 = torch.float8_e4m3fn


def make_calls(form, m, n, k, copies):
    if form != "bf16":
        m = (m + 15) // 16 * 16  # cuBLASLt's FP8 GEMM takes dimensions in multiples of 16: engines pad
    x16 = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    if form == "bf16":
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
        return [lambda w=w: torch.matmul(x16, w.t()) for w in ws], 16, 0.0
    x8 = x16.to(FP8)
    ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16).to(FP8) for _ in range(copies)]
    one = torch.ones((), device="cuda", dtype=torch.float32)
    if form == "fp8_tensor":
        return [lambda w=w: torch._scaled_mm(x8, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
                for w in ws], 8, 0.0
    if form == "fp8_row":
        sa = torch.ones(m, 1, device="cuda", dtype=torch.float32)
        sb = torch.ones(1, n, device="cuda", dtype=torch.float32)
        return [lambda w=w: torch._scaled_mm(x8, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
                for w in ws], 8, 4.0 / k  # one float32 scale per weight row
    if form == "fp8_block":
        # DeepSeek's recipe: activations 1 x 128, weights 128 x 128, float32 scales, the
        # activation scales outer-dim-major (as cuBLASLt's block-scaled FP8 GEMM reads them).
        sa = torch.ones(k // 128, m, device="cuda", dtype=torch.float32).t()
        sb = torch.ones(n // 128 if n % 128 == 0 else n // 128 + 1, k // 128, device="cuda", dtype=torch.float32).t()
        return [lambda w=w: torch._scaled_mm(x8, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
                for w in ws], 8, 4.0 / (128 * 128)
    raise ValueError(form)


def write(path, form, rows, status):
    attrs = run_attributes("torch", "torch_gemm_check.py", "none: a check of a profile, not fitted")
    attrs.update({
        "form": form,
        "padding": "the FP8 forms pad m to a multiple of 16; flops and rates count the unpadded m",
        "shapes": "DeepSeek-R1 and Llama-3.1-70B dense GEMMs per GPU at TP 8 (torch_gemm_check.py SHAPES)",
        "status": status,
    })
    cols = ["m", "n", "k", "dtype_bits", "weight_scale_bytes", "flops", "achieved_flops_per_s", "time_s", "held_out"]
    kernel = f"torch {form}: " + ("torch.matmul" if form == "bf16" else "torch._scaled_mm")
    write_calibration_file(path, attrs, "gemm", cols, rows, {"kernel": kernel, "monotone": "m:+"})


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    for form in ["bf16", "fp8_tensor", "fp8_row", "fp8_block"]:
        rows, failures = [], []
        for model, name, n, k in SHAPES:
            copies = max(2, min(32, math.ceil(ROTATE_BYTES / (n * k * (2 if form == "bf16" else 1)))))
            for m in MS:
                try:
                    calls, bits, scale_bytes = make_calls(form, m, n, k, copies)
                    t = graph_time_s(calls)
                except Exception as e:  # a form or shape this build does not support
                    failures.append(f"{name} m={m}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
                    continue
                finally:
                    torch.cuda.empty_cache()
                flops = 2.0 * m * n * k
                rows.append(dict(m=m, n=n, k=k, dtype_bits=bits, weight_scale_bytes=scale_bytes, flops=flops,
                                 achieved_flops_per_s=flops / t, time_s=t, held_out=0))
                print(f"{form:10s} {model:14s} {name:14s} m={m:5d} n={n:5d} k={k:5d} {t * 1e6:9.2f} us "
                      f"{flops / t / 1e12:7.1f} TFLOP/s", flush=True)
        status = f"{len(rows)} shapes timed, {len(failures)} failed" + (f" (first: {failures[0]})" if failures else "")
        print(f"{form}: {status}", flush=True)
        if rows:
            write(f"{out}/torch-gemm-{form}.h5", form, rows, status)


if __name__ == "__main__":
    main()
