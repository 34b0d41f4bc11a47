#!/usr/bin/env python3
"""Runs the README's ten-minute tour as a reader would: every ```sh block under "## A ten-minute
tour", exactly as written, from a folder that looks like the repository root (its folders linked,
./build/agentsim the binary under test), checking each block exits 0 and prints the text of the
<!-- tour-expect: TEXT --> line after it.   usage: readme_tour.py REPO_ROOT AGENTSIM_BINARY"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

root, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
readme = open(os.path.join(root, "README.md")).read()
m = re.search(r"^## A ten-minute tour\n(.*?)(?=^## )", readme, re.S | re.M)
if not m:
    sys.exit("README.md: no '## A ten-minute tour' section")
blocks = re.findall(r"```sh\n(.*?)```\n(?:<!-- tour-expect: (.*?) -->)?", m.group(1), re.S)
if len(blocks) < 6:
    sys.exit(f"README.md: the tour has {len(blocks)} sh blocks; expected one per command (run, explain, plan, "
             "validate, report, trace)")
commands = " ".join(b for b, _ in blocks)
for word in ("run", "explain", "plan", "validate", "report", "trace"):
    if not re.search(r"\./build/agentsim " + word + r"\b", commands):
        sys.exit(f"README.md: the tour has no `./build/agentsim {word}` command")

work = tempfile.mkdtemp(prefix="agentsim_readme_tour_")
try:
    for name in os.listdir(root):
        if name.startswith(("build", "out", ".")):
            continue
        os.symlink(os.path.join(root, name), os.path.join(work, name))
    os.mkdir(os.path.join(work, "build"))
    os.symlink(binary, os.path.join(work, "build", "agentsim"))
    failed = 0
    for script, expect in blocks:
        t0 = time.monotonic()
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work, capture_output=True, text=True,
                           timeout=300)
        out = r.stdout + r.stderr
        took = time.monotonic() - t0
        first = script.strip().splitlines()[0]
        if r.returncode != 0:
            print(f"FAILED ({r.returncode}, {took:.1f} s): {first}\n{out[-3000:]}")
            failed += 1
        elif not expect:
            print(f"FAILED: no <!-- tour-expect: TEXT --> line after the block of {first}")
            failed += 1
        elif expect not in out:
            print(f"FAILED: '{expect}' not in the output of {first}\n{out[-3000:]}")
            failed += 1
        else:
            print(f"ok ({took:.1f} s): {first}")
    sys.exit(1 if failed else 0)
finally:
    shutil.rmtree(work, ignore_errors=True)
