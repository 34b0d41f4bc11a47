#!/usr/bin/env python3
"""Transcribe AMD aiter's tuned-kernel tables (DeepSeek-V3/R1 shapes) into gemm.csv's columns.

aiter's tuner measures every candidate kernel for a shape and commits the fastest, with its time
in microseconds (`us`), to CSVs under aiter/configs/. Those times are the kernels SGLang runs on
AMD for DeepSeek-R1 (aiter blockscale GEMMs and fused MoE). This script reads four of them from a
checkout of https://github.com/ROCm/aiter and prints aiter_tuned.csv (see PROVENANCE.md):

  python3 aiter_tuned.py /path/to/aiter e4048607a535ace3a2b51ded31b1c8c2d45c0879 > aiter_tuned.csv

Rows: cu_num 304 (gfx942: MI300X and MI325X) -> gpu_family MI300X; cu_num 256 on gfx950 (MI355X,
MI350X) -> MI355X. Dense FP8 GEMMs at the shapes of a DeepSeek-V3 layer at TP 8 and 4 (SHAPES), m a
power of two; dense MXFP4 GEMMs at every shape aiter tuned for DeepSeek-V3; fused MoE
calls at DeepSeek-V3's expert geometry (hidden 7168, 256 routed experts, top-8; aiter's E = 257 /
topk = 9 and E = 33 / topk = 9 tables fuse the shared expert in as one more expert), whose
grouped-GEMM geometry is this script's derivation, stated in every row's notes.
"""
import csv
import subprocess
import sys

FILES = {
    "fp8_gemm": "aiter/configs/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv",
    "fp4_gemm": "aiter/configs/model_configs/dsv3_a4w4_blockscale_tuned_gemm.csv",
    "fp8_moe": "aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_ds_v3.csv",
    "fp4_moe": "aiter/configs/model_configs/dsv3_fp4_tuned_fmoe.csv",
}
COLUMNS = ["gpu_family", "gpu", "library", "kernel_or_op", "dtype", "layout_or_scaling", "num_groups", "m", "n", "k",
           "achieved_tflops", "achieved_GBps", "latency_us", "speedup_vs_baseline", "source", "quality", "notes"]
GPU = {"304": ("MI300X", "gfx942, 304 CUs (aiter's cu_num 304: MI300X and MI325X)"),
       "256": ("MI355X", "gfx950, 256 CUs (aiter's cu_num 256: MI355X and MI350X)")}
DTYPE = {"fp8": "FP8 e4m3 (fnuz on gfx942) block-scaled: 1x128 activations, 128x128 weights, BF16 out",
         "fp4": "FP4 e2m1 (MXFP4: e8m0 scale per 32 elements) weights and activations, BF16 out"}
POW2 = {2 ** i for i in range(16)}  # m = 1 .. 32768
# (N, K) of DeepSeek-V3's FP8 linear layers at TP 8 and TP 4, the InferenceX layouts: fused q_a/kv_a
# 2112x7168 (q_a 1536, kv_a 576 alone), q_b 24576/tp x 1536, o_proj 7168 x 16384/tp, dense FFN
# 2 x 18432/tp x 7168 and 7168 x 18432/tp, shared expert 2 x 2048/tp x 7168 and 7168 x 2048/tp,
# plus aiter's split 8192x1536 and 4096x512 (q_b and kv_b views it tunes).
SHAPES = {(2112, 7168), (1536, 7168), (576, 7168), (3072, 1536), (6144, 1536), (7168, 2048), (7168, 4096),
          (4608, 7168), (9216, 7168), (7168, 2304), (7168, 4608), (512, 7168), (1024, 7168), (7168, 256),
          (7168, 512), (256, 7168), (8192, 1536), (4096, 512)}
HIDDEN, ROUTED, TOP_K = 7168, 256, 8


def read(repo, commit, path):
    text = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout
    return list(csv.DictReader(text.splitlines()))


def source(commit, path):
    return f"github:ROCm/aiter@{commit}:{path}"


def dense(rows, dtype, commit, path, out):
    for r in rows:
        cu = r["cu_num"]
        if cu not in GPU or (cu == "256" and r.get("gfx", "gfx950") != "gfx950"):
            continue
        m, n, k, us = int(r["M"]), int(r["N"]), int(r["K"]), float(r["us"])
        if m not in POW2 or not us > 0 or (dtype == "fp8" and (n, k) not in SHAPES):
            continue
        fam, gpu = GPU[cu]
        out.append({"gpu_family": fam, "gpu": gpu, "library": f"aiter tuned {dtype.upper()} blockscale GEMM ({r.get('libtype', 'asm')})",
                    "kernel_or_op": "dense GEMM", "dtype": DTYPE[dtype], "layout_or_scaling": "aiter tuner, best kernel",
                    "num_groups": 1, "m": m, "n": n, "k": k, "achieved_tflops": "", "achieved_GBps": "",
                    "latency_us": r["us"], "speedup_vs_baseline": "", "source": source(commit, path), "quality": "primary",
                    "notes": f"aiter tuned row cu_num {cu}, M {m} N {n} K {k}: us {r['us']} (kernel {r['kernelName'][:60]}); "
                             "latency_us is aiter's us column."})


def copies(rows):
    """Ids of rows aiter copied rather than measured. aiter derives `tflops` and `bw` from a row's
    own geometry and time, so (1) of a run of rows repeating each other's us, tflops and bw in a
    series (same cu_num and geometry, consecutive token counts), the one whose tflops are its own
    token count's work over the time (2 x token x topk x model_dim x 3 x inter_dim / us, counting
    topk with or without a fused shared expert, within 2%) was measured and the others copied from
    it; where none is, the smallest token count is kept; (2) of rows at the same
    cu_num, token, model_dim and inter_dim that repeat each other across layouts (expert, topk), those
    whose tflops are not 2 x token x topk x model_dim x 3 x inter_dim / us (within 2%) were copied from
    the one whose are. Where no row of such a set reproduces its tflops, none is dropped."""
    def same(a, b):
        return (a["us"], a["tflops"], a["bw"]) == (b["us"], b["tflops"], b["bw"])

    def own_tflops(r, topk=None):
        flops = 2 * int(r["token"]) * (topk or int(r["topk"])) * int(r["model_dim"]) * 3 * int(r["inter_dim"])
        return float(r["us"]) > 0 and float(r["tflops"] or 0) > 0 and \
            abs(flops / (float(r["us"]) * 1e6) / float(r["tflops"]) - 1) < 0.02

    def own_work(r):  # aiter's tuners count a fused shared expert in topk in some runs, not in others
        k = int(r["topk"])
        return own_tflops(r) or (k == TOP_K + 1 and own_tflops(r, TOP_K))

    out = set()
    series = {}
    for r in rows:
        series.setdefault((r["cu_num"], r["model_dim"], r["inter_dim"], r["expert"], r["topk"]), []).append(r)
    for s in series.values():
        s.sort(key=lambda r: int(r["token"]))
        runs = []
        for r in s:
            if runs and same(runs[-1][-1], r):
                runs[-1].append(r)
            else:
                runs.append([r])
        for run in runs:
            measured = [r for r in run if own_work(r)]
            keep = measured[0] if len(measured) == 1 else run[0]
            out.update(id(r) for r in run if r is not keep)
    layouts = {}
    for r in rows:
        layouts.setdefault((r["cu_num"], r["token"], r["model_dim"], r["inter_dim"]), []).append(r)
    for group in layouts.values():
        for r in group:
            twins = [o for o in group if o is not r and same(o, r)]
            if twins and not own_tflops(r) and any(own_tflops(o) for o in twins):
                out.add(id(r))
    return out


def moe(rows, dtype, commit, path, out):
    copied = copies(rows)
    for r in rows:
        if id(r) in copied:
            continue
        cu = r["cu_num"]
        if cu not in GPU or int(r["model_dim"]) != HIDDEN:
            continue
        tokens, inter, experts, topk, us = int(r["token"]), int(r["inter_dim"]), int(r["expert"]), int(r["topk"]), float(r["us"])
        if tokens not in POW2 or not us > 0:
            continue
        shared = topk == TOP_K + 1  # the shared expert fused in as expert E-1, picked by every token
        local = experts - (1 if shared else 0)  # routed experts this GPU holds: 256 (TP) or 32 (EP 8)
        if local not in (ROUTED, ROUTED // 8):
            continue
        distinct = local * (1 - (1 - TOP_K / ROUTED) ** tokens) + (1 if shared else 0)
        pairs = tokens * TOP_K * local / ROUTED + (tokens if shared else 0)
        m, n = pairs / distinct, 3 * inter
        layout = f"DeepSeek-V3 MoE at {'TP ' + str(2048 // inter) if local == ROUTED else 'EP 8'}" + \
                 (", shared expert fused" if shared else "")
        fam, gpu = GPU[cu]
        out.append({"gpu_family": fam, "gpu": gpu, "library": f"aiter tuned fused MoE ({dtype.upper()}, 2-stage or 1-stage, best kernel)",
                    "kernel_or_op": "grouped GEMM, fused MoE (w13 + activation + w2)", "dtype": DTYPE[dtype],
                    "layout_or_scaling": layout, "num_groups": f"{distinct:.6f}", "m": f"{m:.6f}", "n": n, "k": HIDDEN,
                    "achieved_tflops": "", "achieved_GBps": "", "latency_us": r["us"], "speedup_vs_baseline": "",
                    "source": source(commit, path), "quality": "primary",
                    "notes": f"aiter tuned row cu_num {cu}, token {tokens}, model_dim {HIDDEN}, inter_dim {inter}, expert {experts}, "
                             f"topk {topk}: us {r['us']} (stage 1 {r['us1']} + stage 2 {r['us2']}). Geometry (this project's "
                             f"derivation): num_groups = expected distinct experts, {local} x (1 - (1 - 8/256)^tokens)"
                             f"{' + 1 (shared)' if shared else ''}; m = token-expert pairs per active expert, tokens x 8 x {local}/256"
                             f"{' + tokens' if shared else ''} over num_groups; n = 3 x inter_dim (w13 gate+up and w2 output widths "
                             "summed); k = 7168, so 2 m n k num_groups is the call's FLOPs."})


def main():
    repo, commit = sys.argv[1], sys.argv[2]
    out = []
    dense(read(repo, commit, FILES["fp8_gemm"]), "fp8", commit, FILES["fp8_gemm"], out)
    dense(read(repo, commit, FILES["fp4_gemm"]), "fp4", commit, FILES["fp4_gemm"], out)
    moe(read(repo, commit, FILES["fp8_moe"]), "fp8", commit, FILES["fp8_moe"], out)
    moe(read(repo, commit, FILES["fp4_moe"]), "fp4", commit, FILES["fp4_moe"], out)
    w = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\r\n")
    w.writeheader()
    w.writerows(out)


if __name__ == "__main__":
    main()
