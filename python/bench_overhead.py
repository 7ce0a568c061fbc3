"""Per-call host overhead of a Kernel call (BENCHMARKS.md, "Python: per-call overhead").

Calls a compiled 1,024-element saxpy `CALLS` times (after warm-up calls that
make its pipelines) and prints the median wall time of one call next to what
`Kernel.bench` reports for the same kernel (the GPU's own time and the wall
time of dispatch and wait, inputs already on the device), and the difference.

    python python/bench_overhead.py [CALLS]
"""

import statistics
import sys
import time
from pathlib import Path

import numpy as np

import texpr

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
N = 1024
src = (Path(__file__).resolve().parents[1] / "examples" / "saxpy.te").read_text()
k = texpr.compile(src, defines={"N": N}, schedule="default")
r = np.random.default_rng(0)
inputs = {
    "a": np.float32([2.0]),
    "x": r.standard_normal(N).astype(np.float32),
    "y": r.standard_normal(N).astype(np.float32),
}
for _ in range(20):
    k(**inputs)
times = []
for _ in range(CALLS):
    t0 = time.perf_counter()
    k(**inputs)
    times.append(time.perf_counter() - t0)
call = statistics.median(times)
b = k.bench(runs=CALLS // 10 or 1, warmups=10, **inputs)
gpu = b["gpu_s"]
print(f"device: {k.device.info['name']}")
print(f"schedule: {k.schedule.strip()}")
print(f"Kernel(**inputs), median of {CALLS} calls: {call * 1e6:.1f} us "
      f"(p10 {np.percentile(times, 10) * 1e6:.1f}, p90 {np.percentile(times, 90) * 1e6:.1f})")
print(f"bench: GPU time {gpu * 1e6:.1f} us" if gpu is not None else "bench: no GPU timestamps")
print(f"bench: dispatch and wait (wall) {b['wall_s'] * 1e6:.1f} us")
print(f"call - bench wall: {(call - b['wall_s']) * 1e6:.1f} us; call - GPU time: {(call - (gpu or b['wall_s'])) * 1e6:.1f} us")
