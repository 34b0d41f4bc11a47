#!/usr/bin/env python3
"""Writes answer_lengths.csv: the length in tokens of every answer in the DeepSeek-R1 results'
TEST06 compliance accuracy logs of MLPerf Inference v5.1.

Usage: python3 answer_lengths.py RESULTS_REPO > answer_lengths.csv
RESULTS_REPO: a git clone of github.com/mlcommons/inference_results_v5.1 (PROVENANCE.md names the
commit). Each <division>/<submitter>/compliance/<system>/deepseek-r1/<scenario>/TEST06/accuracy/
mlperf_log_accuracy.json lists the answers the submitted system generated for 100 of the
benchmark's prompts (one set of 100 for Offline, another for Server), each with its
`token_count`. One row per answer: the log's folder, the prompt's index in the dataset and the
answer's tokens.
"""
import csv, json, subprocess, sys

REPO = sys.argv[1]

def git(*args):
    return subprocess.run(['git', '-C', REPO, *args], capture_output=True, text=True, check=True).stdout

paths = sorted(p for p in git('ls-tree', '-r', '--name-only', 'HEAD').split('\n')
               if '/deepseek-r1/' in p and p.endswith('TEST06/accuracy/mlperf_log_accuracy.json'))
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(['location', 'qsl_idx', 'output_tokens'])
for p in paths:
    for e in sorted(json.loads(git('show', 'HEAD:' + p)), key=lambda e: e['qsl_idx']):
        out.writerow([p.rsplit('/TEST06/', 1)[0], e['qsl_idx'], e['token_count']])
