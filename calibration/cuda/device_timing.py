"""What the device-side Python checks share: timing callables replayed from one CUDA graph, and
writing a calibration file in agentsim's layout (docs/calibration.md, "The calibration file")."""
import datetime
import math

import h5py
import numpy as np
import torch


def graph_time_s(calls, launches=32):
    """Best seconds per call of the callables, replayed in turn from one CUDA graph of about
    `launches` calls (best of 5 replays, after a warm-up that also compiles them)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    reps = max(1, launches // len(calls))
    with torch.cuda.graph(g):
        for _ in range(reps):
            for c in calls:
                c()
    g.replay()
    torch.cuda.synchronize()
    best = math.inf
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) * 1e-3 / (reps * len(calls)))
    del g
    return best


def run_attributes(backend, script, peak_method, driver_extra=""):
    """The root attributes every device-side check writes: what ran, where and when."""
    p = torch.cuda.get_device_properties(0)
    return {
        "backend": backend,
        "launch": "graph",
        "device": torch.cuda.get_device_name(0),
        "compute_capability": f"{p.major}.{p.minor}",
        "driver": f"torch {torch.__version__}, CUDA {torch.version.cuda}" + driver_extra,
        "clocks": "as set by the machine",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command_line": f"python3 calibration/cuda/{script}",
        "mode": "full",
        "gpus": str(torch.cuda.device_count()),
        "peak_method": peak_method,
    }


def write_calibration_file(path, attrs, table, cols, rows, table_attrs):
    """One table of float64 columns `cols` (rows: dicts) and string attributes on the root and
    the table."""
    with h5py.File(path, "w") as f:
        for key, value in attrs.items():
            f.attrs.create(key, np.bytes_(value))
        data = np.array([tuple(float(r[c]) for c in cols) for r in rows], dtype=[(c, "<f8") for c in cols])
        ds = f.create_dataset(table, data=data)
        for key, value in table_attrs.items():
            ds.attrs.create(key, np.bytes_(value))
