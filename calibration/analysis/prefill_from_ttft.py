#!/usr/bin/env python3
"""Prefill time as the measured runs show it, against the model's: TTFT(8k prompt) - TTFT(1k prompt).

At low concurrency a request's TTFT is its request path (client, HTTP, tokeniser: not priced by the
model, about 0.1 s here) plus its prefill plus a share of a decode step. The difference between two
runs that differ only in prompt length (8,192 vs 1,024 tokens, the same system, engine, precision,
plan, speculation and concurrency) cancels the request path and leaves ~7k tokens of prefill. This
script pairs such InferenceX rows (their ids differ only in the 8k1k / 1k1k / 1k8k token) in the
JSON of `agentsim validate ... --cv --json` and prints, per pair, the measured and the in-sample
predicted difference of median TTFT and their ratio, then the median ratio per (group, engine,
precision). A ratio above 1 means the model's prefill is too fast.

  ./build/agentsim validate experiments/validation/validate.yaml --measured experiments/validation/ \\
      --cv --json > v.json && python3 calibration/analysis/prefill_from_ttft.py v.json [max_concurrency]
"""
import collections
import json
import re
import statistics
import sys


def main():
    rows = json.load(open(sys.argv[1]))["rows"]
    max_conc = float(sys.argv[2]) if len(sys.argv) > 2 else 4
    pairs = collections.defaultdict(dict)
    for r in rows:
        if r["concurrency"] > max_conc or not re.search(r"-(8k1k|1k1k|1k8k)-", r["id"]):
            continue
        ttft = [m for m in r["metrics"] if m["metric"] == "ttft_s_median"]
        if not ttft:
            continue
        key = re.sub(r"-(8k1k|1k1k|1k8k)-", "-*-", r["id"])
        pairs[key][(r["isl"], r["osl"])] = (ttft[0]["measured"], ttft[0]["predicted_in_sample"], r["group"], r["engine"])
    by_group = collections.defaultdict(list)
    print("pair                                                  measured  predicted  ratio")
    for key in sorted(pairs):
        long = pairs[key].get((8192, 1024))
        short = pairs[key].get((1024, 1024)) or pairs[key].get((1024, 8192))  # the same output length first
        if not long or not short:
            continue
        dm, dp = long[0] - short[0], long[1] - short[1]
        ratio = dm / dp if dp > 0 else float("nan")
        print(f"{key:52s} {dm:8.3f} s {dp:8.3f} s {ratio:6.2f}")
        precision = "fp4" if "-fp4-" in key else "fp8"
        by_group[(long[2], long[3], precision)].append(ratio)
    print("\ngroup, engine, precision: pairs, median ratio")
    for k in sorted(by_group):
        print(f"{k[0]:24s} {k[1]:7s} {k[2]}: {len(by_group[k])}, {statistics.median(by_group[k]):.2f}")


if __name__ == "__main__":
    main()
