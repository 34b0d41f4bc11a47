#!/usr/bin/env python3
"""Where the model errs, by regime: the signed cross-validated errors of `agentsim validate --cv`.

Groups the InferenceX rows of the JSON of `agentsim validate ... --cv --json` (ids name the
weight format, e.g. `IXF-b200-sglang-fp8-mtp-agg-8k1k-tp8ep1-c64`) by system, weight format,
prompt/output lengths and load (concurrency below or at least `split`, default 32), and prints per
regime the number of rows and the median signed CV error, (predicted - measured) / measured in
percent, of output tok/s per GPU and of median TPOT. A positive output error means the model is too
fast there (and its TPOT error is then negative). Rows whose id names no format are left out and
counted.

  ./build/agentsim validate experiments/validation/validate.yaml --measured experiments/validation/ \\
      --cv --json > v.json && python3 calibration/analysis/residuals_by_regime.py v.json [split]
"""
import collections
import json
import re
import statistics
import sys


def main():
    rows = json.load(open(sys.argv[1]))["rows"]
    split = float(sys.argv[2]) if len(sys.argv) > 2 else 32
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


if __name__ == "__main__":
    main()
