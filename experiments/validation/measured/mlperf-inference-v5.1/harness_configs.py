#!/usr/bin/env python3
"""Writes harness_configs.csv: the TensorRT-LLM harness settings each MLPerf Inference v5.1 LLM
result was run with, read from its submitter's config file in the results repository.

Usage: python3 harness_configs.py RESULTS_REPO llm_datacenter_results.csv > harness_configs.csv
RESULTS_REPO: a git clone of github.com/mlcommons/inference_results_v5.1 (PROVENANCE.md names the
commit). For each TensorRT result of llama2-70b-99/-99.9, llama3.1-8b and deepseek-r1, the config
is <division>/<submitter>/configs/<system>/<scenario>/<benchmark>.py, <system> being the results
folder's name with or without its `_TRT` suffix. The configs are Python modules of NVIDIA's
harness; they are executed with the harness's field and constant modules replaced by stubs that
name each field, and the setting for the result's accuracy target (0.99, or 0.999 for -99.9) at
MaxP power (else the first) is written. Results without a config file are reported on stderr.
"""
import csv, subprocess, sys, types, os

REPO = sys.argv[1]
ROWS = sys.argv[2]

def show(path):
    r = subprocess.run(['git', '-C', REPO, 'show', 'HEAD:' + path], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None

def tree():
    r = subprocess.run(['git', '-C', REPO, 'ls-tree', '-r', '--name-only', 'HEAD'], capture_output=True, text=True)
    return set(r.stdout.split('\n'))

class Named:
    def __init__(self, name): self.name = name
    def __getattr__(self, a):
        if a.startswith('__'): raise AttributeError(a)
        return Named(self.name + '.' + a)
    def __call__(self, *args): return ('call', self.name, args)
    def __repr__(self): return self.name
    def __hash__(self): return hash(self.name)
    def __eq__(self, o): return isinstance(o, Named) and o.name == self.name

class FieldModule(types.ModuleType):
    def __getattr__(self, a):
        if a.startswith('__'): raise AttributeError(a)
        return a

def stub_modules():
    mods = {}
    C = types.ModuleType('code.common.constants')
    C.WorkloadSetting = lambda *a: tuple(a)
    C.HarnessType = Named('HarnessType')
    C.AccuracyTarget = lambda v: ('acc', v)
    C.PowerSetting = Named('PowerSetting')
    for n in ['code', 'code.common', 'code.llmlib', 'code.fields']:
        mods[n] = types.ModuleType(n)
    mods['code.common.constants'] = C
    for n in ['code.llmlib.fields', 'code.fields.models', 'code.fields.loadgen', 'code.fields.harness',
              'code.fields.power', 'code.fields.triton', 'code.fields.gen_engines', 'code.fields.general']:
        mods[n] = FieldModule(n)
    return mods

def load(src):
    saved = dict(sys.modules)
    sys.modules.update(stub_modules())
    env = os.environ.copy()
    try:
        g = {'__name__': 'cfg'}
        exec(compile(src, 'cfg', 'exec'), g)
        return g.get('EXPORTS')
    finally:
        sys.modules.clear(); sys.modules.update(saved)
        os.environ.clear(); os.environ.update(env)

def pick(exports, acc):
    best = None
    for k, v in exports.items():
        harness, target, power = k
        if target != ('acc', acc): continue
        if power.name.endswith('MaxP'): return v
        best = best or v
    return best

files = tree()
out = csv.writer(sys.stdout, lineterminator='\n')
out.writerow(['location', 'config', 'tensor_parallelism', 'pipeline_parallelism', 'moe_expert_parallelism',
              'enable_attention_dp', 'gpu_batch_size', 'max_num_tokens', 'kvcache_free_gpu_mem_frac',
              'enable_chunked_context', 'cuda_graph_max_batch', 'adp_balancing_batching_wait_iters',
              'adp_balancing_timeout_iters'])
seen = set()
for r in csv.DictReader(open(ROWS)):
    loc = r['Location']
    if loc in seen or not r['Software'].startswith('TensorRT'): continue
    seen.add(loc)
    parts = loc.split('/')  # division/submitter/results/system/benchmark/scenario
    if len(parts) != 6: continue
    div, sub, _, system, bench, scen = parts
    stem = {'llama3.1-8b': 'llama3_1-8b', 'llama2-70b-99': 'llama2-70b', 'llama2-70b-99.9': 'llama2-70b',
            'deepseek-r1': 'deepseek-r1'}.get(bench)
    if stem is None: continue
    acc = 0.999 if bench.endswith('99.9') else 0.99
    cands = [system, system[:-4] if system.endswith('_TRT') else system]
    path = None
    for s in cands:
        p = f'{div}/{sub}/configs/{s}/{scen}/{stem}.py'
        if p in files: path = p; break
    if path is None:
        print(f'no config for {loc}', file=sys.stderr); continue
    try:
        ex = load(show(path))
        v = pick(ex, acc)
    except Exception as e:
        print(f'{path}: {type(e).__name__}: {e}', file=sys.stderr); continue
    if v is None:
        print(f'{path}: no setting for accuracy {acc}', file=sys.stderr); continue
    rt = v.get('trtllm_runtime_flags', {}) or {}
    bf = v.get('trtllm_build_flags', {}) or {}
    gbs = v.get('gpu_batch_size', {})
    gbs = list(gbs.values())[0] if isinstance(gbs, dict) and gbs else gbs
    graphs = rt.get('cuda_graph_batch_sizes')
    ad = bf.get('enable_attention_dp', rt.get('enable_attention_dp', False))
    out.writerow([loc, path, v.get('tensor_parallelism', ''), v.get('pipeline_parallelism', ''),
                  v.get('moe_expert_parallelism', ''), 'true' if ad else 'false', gbs,
                  rt.get('max_num_tokens', bf.get('max_num_tokens', '')), rt.get('kvcache_free_gpu_mem_frac', ''),
                  {True: 'true', False: 'false'}.get(rt.get('enable_chunked_context'), ''),
                  max(graphs) if graphs else '', rt.get('adp_balancing_batching_wait_iters', ''),
                  rt.get('adp_balancing_timeout_iters', '')])
