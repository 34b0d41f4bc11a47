#!/usr/bin/env python3
"""Where the model errs, by regime: the signed cross-validated errors of `agentsim validate --cv`.

Groups the InferenceX rows of the JSON of `agentsim validate ... --cv --json` (ids name the
weight format, e.g. `IXF-b200-sglang-fp8-mtp-agg-8k1k-tp8ep1-c64`) by system, weight format,
prompt/output lengths and load (concurrency below or at least `split`, default 32), and prints per
regime the number of rows and the median signed CV error, (predicted - measured) / measured in
percent, of output tok/s per GPU and of median TPOT. A positive output error means the model is too
fast there (and its TPOT error is then negative). Rows whose id names no format are left out and
counted. With `--image`, the regime is (system, model, engine image) instead: the engine field of
each row's mapping (serving-points-2's engine_version, e.g. `lmsysorg/sglang:v0.5.9-rocm700-mi30x`,
or the engine named when the fixture recorded no image), so runs of one system under two software
releases can be told apart.

  ./build/agentsim validate experiments/validation/validate.yaml --measured experiments/validation/ \\
      --cv --json > v.json && python3 calibration/analysis/residuals_by_regime.py v.json [split] [--image]
"""
import collections
import json
import re
import statistics
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--image"]
    by_image = "--image" in sys.argv[1:]
    rows = json.load(open(args[0]))["rows"]
    split = float(args[1]) if len(args) > 1 else 32
    if by_image:
        print_by_image(rows)
        return
    regimes = collections.defaultdict(lambda: ([], []))
    unnamed = 0
    for r in rows:
        fmt = re.search(r"-(fp8|fp4)-", r["id"])
        errors = {m["metric"]: m.get("error_cv_pct") for m in r["metrics"]}
        if not fmt:
            unnamed += 1
            continue
        if errors.get("output_tok_s_per_gpu") is None:
            continue
        load = "high" if r["concurrency"] >= split else "low"
        key = (r["group"].split("/")[0], r["group"].split("/")[1], fmt.group(1), f"{r['isl']}/{r['osl']}", load)
        out, tpot = regimes[key]
        out.append(errors["output_tok_s_per_gpu"])
        if errors.get("tpot_s_median") is not None:
            tpot.append(errors["tpot_s_median"])
    print(f"{'system':<10} {'model':<14} {'weights':<7} {'isl/osl':<10} {'load':<5} {'rows':>4} "
          f"{'output tok/s':>12} {'median TPOT':>11}")
    for key in sorted(regimes):
        out, tpot = regimes[key]
        t = f"{statistics.median(tpot):+.1f}%" if tpot else "-"
        print(f"{key[0]:<10} {key[1]:<14} {key[2]:<7} {key[3]:<10} {key[4]:<5} {len(out):>4} "
              f"{statistics.median(out):>+11.1f}% {t:>11}")
    print(f"(load: concurrency < {split:g} low, >= {split:g} high; {unnamed} rows name no weight format)")


def print_by_image(rows):
    """Rows and median signed CV errors per (system, model, engine image), every mapped row."""
    regimes = collections.defaultdict(lambda: ([], []))
    for r in rows:
        errors = {m["metric"]: m.get("error_cv_pct") for m in r["metrics"]}
        if errors.get("output_tok_s_per_gpu") is None:
            continue
        fields = r["mapping"].split(" | ")
        image = fields[4] if len(fields) > 4 else "(mapping names no engine)"
        system, model = r["group"].split("/")
        out, tpot = regimes[(system, model, image)]
        out.append(errors["output_tok_s_per_gpu"])
        if errors.get("tpot_s_median") is not None:
            tpot.append(errors["tpot_s_median"])
    print(f"{'system':<12} {'model':<16} {'rows':>4} {'output tok/s':>12} {'median TPOT':>11}  engine image")
    for key in sorted(regimes):
        out, tpot = regimes[key]
        t = f"{statistics.median(tpot):+.1f}%" if tpot else "-"
        print(f"{key[0]:<12} {key[1]:<16} {len(out):>4} {statistics.median(out):>+11.1f}% {t:>11}  {key[2]}")


if __name__ == "__main__":
    main()
