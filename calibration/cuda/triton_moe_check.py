#!/usr/bin/env python3
"""Times SGLang's own Triton fused-MoE GEMM kernel at DeepSeek-R1's expert shapes per GPU at
tensor parallelism 8, FP8 with DeepSeek's 128 x 128 weight blocks and 1 x 128 activation groups:
the kernel an SGLang server runs for DeepSeek-R1's routed experts on an H200 (the InferenceX
recipes: TP 8, no expert parallelism, shared-expert fusion on by default, so 257 experts and 9
picks a token, the ninth the shared expert every token picks).

The kernel is not in this repository: the script imports it from an SGLang checkout's
`python/sglang/srt/layers/moe/fused_moe_triton/fused_moe_triton_kernels.py` (KERNELS) with
stand-ins for the few helpers that file imports from the rest of SGLang, and calls SGLang's
launcher, `invoke_fused_moe_kernel`, with SGLang's tuned configuration for the device (CONFIG,
the `E=257,N=256,device_name=...,dtype=fp8_w8a8,block_shape=[128, 128].json` file, the config of
the nearest token count, as SGLang's `try_get_optimal_moe_config` picks it). What is timed is
the two GEMM launches of one MoE layer (gate/up, then down with the routing weights), replayed
from a CUDA graph over enough copies of the layer's weights that none stays in the L2; what is
not: routing, the sort into expert blocks (`moe_align_block_size`, done here once in PyTorch), the
activations' FP8 quantisation (done once beforehand: the stand-in for SGLang's quantiser hands
the launcher the quantised tensors), SiLU-and-multiply and the sum over picks.

Writes `triton-moe-fp8_block.h5` in agentsim's layout (docs/calibration.md, "The calibration
file"): root string attributes and a `grouped_gemm` table of float64 columns groups, m, n, k,
dtype_bits, weight_scale_bytes, flops, achieved_flops_per_s, time_s, held_out, in the geometry the
published fused-MoE rows use: groups = the distinct experts the call's routing touched, m = the
token-expert pairs per such expert, n = 768 (the gate/up and down GEMMs' output widths per expert
slice, 2 x 256 + 256), k = 7168 (hidden), so 2 m n k groups is the call's FLOPs. Also prints each
GEMM's own time.

Usage (on the GPU machine): python3 calibration/cuda/triton_moe_check.py OUTDIR KERNELS CONFIG
Needs torch, triton and h5py (device_timing.py beside it).
"""
import importlib.util
import inspect
import json
import math
import sys
import types

import torch

from device_timing import graph_time_s, run_attributes, write_calibration_file

HIDDEN, INTER, ROUTED, TOP_K = 7168, 2048, 256, 8  # DeepSeek-R1 (config.json of the checkpoint)
TP = 8
N_SLICE = INTER // TP  # 256: each expert's intermediate width per GPU
EXPERTS, PICKS = ROUTED + 1, TOP_K + 1  # the shared expert fused in as expert 256, picked by every token
BLOCK = 128
TOKENS = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
          8192, 16384, 32768]
ROTATE_BYTES = 4 << 30  # layer copies cycled per replay: the touched experts of every copy exceed the 50-60 MB L2
FP8 = torch.float8_e4m3fn
CHECKED = (4, 256)  # token counts whose gate/up output is compared with PyTorch

_prequantised = {}


def install_stand_ins():
    """The names fused_moe_triton_kernels.py imports from the rest of SGLang, as they are on a CUDA
    build (sglang.srt.utils) or as this harness needs them (the quantisers return the activations
    quantised beforehand, so that only the GEMM kernels are timed)."""
    cap = torch.cuda.get_device_capability(0)
    cuda_ver = tuple(int(x) for x in (torch.version.cuda or "0.0").split(".")[:2])

    def quantised(a, *args, **kwargs):
        return _prequantised[a.data_ptr()]

    def missing(name):
        def f(*args, **kwargs):
            raise RuntimeError(f"stand-in {name} was called: this harness does not support that path")
        return f

    values = {
        "sglang.srt.utils": dict(
            is_cuda=lambda: True, is_hip=lambda: False, is_cpu=lambda: False, cpu_has_amx_support=lambda: False,
            get_bool_env_var=lambda name, default="false": False,
            is_sm90_supported=lambda device=None: cap[0] == 9 and cuda_ver >= (12, 3),
            is_sm100_supported=lambda device=None: cap[0] == 10,
            get_device_name=lambda device_id=0: torch.cuda.get_device_name(device_id)),
        "sglang.srt.batch_invariant_ops": dict(is_batch_invariant_mode_enabled=lambda: False),
        "sglang.srt.layers.moe.utils": dict(get_moe_padding_size=lambda *a, **k: 0),
        "sglang.srt.layers.quantization.fp8_kernel": dict(
            per_token_group_quant_fp8=quantised, sglang_per_token_group_quant_fp8=quantised),
    }
    for name in ["sglang", "sglang.srt", "sglang.srt.layers", "sglang.srt.layers.moe", "sglang.srt.layers.quantization",
                 "sglang.srt.layers.quantization.int8_kernel", *values]:
        m = types.ModuleType(name)
        m.__path__ = []
        for key, value in values.get(name, {}).items():
            setattr(m, key, value)
        m.__getattr__ = lambda key, name=name: missing(f"{name}.{key}")
        sys.modules[name] = m


def load_kernels(path):
    spec = importlib.util.spec_from_file_location("sglang_fused_moe_triton_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def quantise_groups(x):
    """x (rows, cols) bf16 -> FP8 E4M3 and one float32 scale per 1 x 128 group (DeepSeek's recipe)."""
    rows, cols = x.shape
    g = x.float().view(rows, cols // BLOCK, BLOCK)
    scale = g.abs().amax(dim=-1).clamp(min=1e-10) / 448.0
    q = (g / scale.unsqueeze(-1)).clamp(-448.0, 448.0).to(FP8).view(rows, cols)
    return q, scale.contiguous()


def align(topk_ids, block_m):
    """SGLang's moe_align_block_size, in PyTorch: pair indices sorted by expert, each expert's run
    padded to a multiple of block_m with the pair count (an index the kernel masks off), the
    expert of each block, and the padded total; buffers sized as SGLang sizes them."""
    flat = topk_ids.flatten()
    numel = flat.numel()
    max_padded = numel + EXPERTS * (block_m - 1)
    sorted_ids = torch.full((max_padded,), numel, dtype=torch.int32, device="cuda")
    expert_ids = torch.zeros((math.ceil(max_padded / block_m),), dtype=torch.int32, device="cuda")
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=EXPERTS).tolist()
    pos, start = 0, 0
    for e, c in enumerate(counts):
        if c == 0:
            continue
        sorted_ids[pos:pos + c] = order[start:start + c].to(torch.int32)
        blocks = math.ceil(c / block_m)
        expert_ids[pos // block_m:pos // block_m + blocks] = e
        pos += blocks * block_m
        start += c
    total = torch.tensor([pos], dtype=torch.int32, device="cuda")
    return sorted_ids, expert_ids, total, sum(1 for c in counts if c)


def reference_error(x, topk_ids, layer, c1):
    """Largest error of the kernel's gate/up output against PyTorch on the dequantised operands,
    relative to the largest reference value."""
    xq, xs = _prequantised[x.data_ptr()]
    xd = (xq.float().view(x.shape[0], -1, BLOCK) * xs.unsqueeze(-1)).view(x.shape[0], -1)
    w13, s13 = layer[0], layer[1]
    worst, top = 0.0, 0.0
    for t in range(x.shape[0]):
        for j, e in enumerate(topk_ids[t].tolist()):
            wd = (w13[e].float().view(2 * N_SLICE // BLOCK, BLOCK, HIDDEN // BLOCK, BLOCK)
                  * s13[e].view(2 * N_SLICE // BLOCK, 1, HIDDEN // BLOCK, 1)).view(2 * N_SLICE, HIDDEN)
            ref = wd @ xd[t]
            worst = max(worst, (c1[t, j].float() - ref).abs().max().item())
            top = max(top, ref.abs().max().item())
    return worst / top


def main():
    out, kernels_path, config_path = sys.argv[1:4]
    install_stand_ins()
    kern = load_kernels(kernels_path)
    import triton.language as tl
    with open(config_path) as f:
        configs = {int(k): v for k, v in json.load(f).items()}
    params = inspect.signature(kern.invoke_fused_moe_kernel).parameters
    torch.manual_seed(0)

    layer_bytes = EXPERTS * 3 * N_SLICE * HIDDEN
    copies = max(2, math.ceil(ROTATE_BYTES / layer_bytes))
    layers = []
    for _ in range(copies):
        w13 = (torch.randn(EXPERTS, 2 * N_SLICE, HIDDEN, device="cuda", dtype=torch.bfloat16) * 0.05).to(FP8)
        w2 = (torch.randn(EXPERTS, HIDDEN, N_SLICE, device="cuda", dtype=torch.bfloat16) * 0.05).to(FP8)
        s13 = torch.rand(EXPERTS, 2 * N_SLICE // BLOCK, HIDDEN // BLOCK, device="cuda") * 1e-2 + 1e-3
        s2 = torch.rand(EXPERTS, HIDDEN // BLOCK, N_SLICE // BLOCK, device="cuda") * 1e-2 + 1e-3
        layers.append((w13, s13, w2, s2))
    print(f"{copies} layer copies of {layer_bytes / 1e9:.2f} GB; {len(configs)} tuned token counts; "
          f"launcher parameters: {', '.join(params)}", flush=True)

    rows, failures, checks = [], [], []
    for tokens in TOKENS:
        config = configs[min(configs, key=lambda x: abs(x - tokens))]
        block_m = config["BLOCK_SIZE_M"]
        # Routing: 8 distinct routed experts per token, uniformly at random, then the shared one.
        routed = torch.rand(tokens, ROUTED, device="cuda").topk(TOP_K, dim=-1).indices
        topk_ids = torch.cat([routed, torch.full((tokens, 1), ROUTED, device="cuda", dtype=routed.dtype)], 1)
        topk_ids = topk_ids.to(torch.int32).contiguous()
        topk_w = torch.rand(tokens, PICKS, device="cuda", dtype=torch.float32)
        sorted_ids, expert_ids, total, active = align(topk_ids, block_m)
        x = torch.randn(tokens, HIDDEN, device="cuda", dtype=torch.bfloat16)
        h = torch.randn(tokens * PICKS, N_SLICE, device="cuda", dtype=torch.bfloat16)
        _prequantised[x.data_ptr()] = quantise_groups(x)
        _prequantised[h.data_ptr()] = quantise_groups(h)
        c1 = torch.empty(tokens, PICKS, 2 * N_SLICE, device="cuda", dtype=torch.bfloat16)
        c3 = torch.empty(tokens, PICKS, HIDDEN, device="cuda", dtype=torch.bfloat16)

        def call(a, w, s, c, mul, top_k):
            kw = dict(A=a, B=w, bias=None, C=c, A_scale=None, B_scale=s, B_zp=None, topk_weights=topk_w,
                      topk_ids=topk_ids, sorted_token_ids=sorted_ids, expert_ids=expert_ids,
                      num_tokens_post_padded=total, mul_routed_weight=mul, top_k=top_k, config=config,
                      compute_type=tl.bfloat16, use_fp8_w8a8=True, use_int8_w8a8=False, use_int8_w8a16=False,
                      use_int4_w4a16=False, per_channel_quant=False, block_shape=[BLOCK, BLOCK])
            kern.invoke_fused_moe_kernel(**{k: v for k, v in kw.items() if k in params})

        up = [lambda L=L: call(x, L[0], L[1], c1, False, PICKS) for L in layers]
        if tokens in CHECKED:  # the kernel computes what it is timed for: gate/up against PyTorch
            up[0]()
            torch.cuda.synchronize()
            checks.append(f"tokens={tokens}: gate/up max relative error {reference_error(x, topk_ids, layers[0], c1):.2e}")
            print(checks[-1], flush=True)
        down = [lambda L=L: call(h, L[2], L[3], c3, True, 1) for L in layers]
        try:
            t_up, t_down = graph_time_s(up, 16), graph_time_s(down, 16)
            t = graph_time_s([f for pair in zip(up, down) for f in pair], 16) * 2  # one layer's two launches
        except Exception as e:  # a path this SGLang version takes that the stand-ins do not cover
            failures.append(f"tokens={tokens}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            print(failures[-1], flush=True)
            continue
        pairs = tokens * PICKS
        n = 3 * N_SLICE
        flops = 2.0 * pairs * n * HIDDEN
        rows.append(dict(groups=active, m=pairs / active, n=n, k=HIDDEN, dtype_bits=8,
                         weight_scale_bytes=4.0 / (BLOCK * BLOCK), flops=flops, achieved_flops_per_s=flops / t,
                         time_s=t, held_out=0))
        streamed = active * n * HIDDEN
        print(f"tokens={tokens:6d} experts={active:3d} pairs/expert={pairs / active:8.2f} "
              f"BLOCK_M={block_m:3d} up {t_up * 1e6:8.2f} us down {t_down * 1e6:8.2f} us layer {t * 1e6:8.2f} us "
              f"{flops / t / 1e12:7.1f} TFLOP/s weights {streamed / t / 1e12:6.2f} TB/s", flush=True)
        del c1, c3, x, h
        _prequantised.clear()
        torch.cuda.empty_cache()

    status = f"{len(rows)} token counts timed, {len(failures)} failed" + (f" (first: {failures[0]})" if failures else "")
    print(status, flush=True)
    if not rows:
        sys.exit(1)
    import triton
    attrs = run_attributes("triton", "triton_moe_check.py", "none: measured kernel times", f", triton {triton.__version__}")
    attrs.update({
        "kernel_source": kernels_path,
        "kernel_config": config_path,
        "shapes": "DeepSeek-R1 routed experts per GPU at TP 8 with the shared expert fused in (257 experts, 9 picks)",
        "excluded": "routing, moe_align_block_size, activation quantisation, SiLU-and-multiply, the sum over picks",
        "status": status,
        "checks": "; ".join(checks),
    })
    cols = ["groups", "m", "n", "k", "dtype_bits", "weight_scale_bytes", "flops", "achieved_flops_per_s", "time_s",
            "held_out"]
    kernel = "SGLang fused_moe_kernel (Triton), fp8_w8a8, block 128 x 128: gate/up + down"
    write_calibration_file(f"{out}/triton-moe-fp8_block.h5", attrs, "grouped_gemm", cols, rows,
                           {"kernel": kernel, "monotone": "m:+"})


if __name__ == "__main__":
    main()
