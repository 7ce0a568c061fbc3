"""Per-call host overhead of a Kernel call (BENCHMARKS.md, "Python runtime").

Calls a compiled 1,024-element saxpy `CALLS` times (after warm-up calls that
make its pipelines) and prints the median wall time of one call next to what
`Kernel.bench` reports for the same kernel (the GPU's own time and the wall
time of dispatch and wait, inputs already on the device), and the difference.
Then the same saxpy on device arrays (calls that launch and never read
back; the queue drained once at the end), and a chain `k2(k1(x))` on device
arrays at 2^20 elements (one read at the end), the same chain under
`texpr.jit` (one fused program), and the same two steps written as one
program, run interleaved, medians of `CHAIN_RUNS` each.

    python python/bench_overhead.py [CALLS] [CHAIN_RUNS]
"""

import statistics
import sys
import time
from pathlib import Path

import numpy as np

import texpr

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
CHAIN_RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
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

# Device arrays: the same saxpy, inputs on the device, outputs left there.
dev = {name: texpr.asarray(v, device=k.device) for name, v in inputs.items()}
for _ in range(20):
    k(**dev)
k(**dev).numpy()
times = []
for _ in range(CALLS):
    t0 = time.perf_counter()
    k(**dev)
    times.append(time.perf_counter() - t0)
k(**dev).numpy()
dcall = statistics.median(times)
print(f"Kernel(**device arrays), median of {CALLS} calls, no read-back: {dcall * 1e6:.1f} us "
      f"(p10 {np.percentile(times, 10) * 1e6:.1f}, p90 {np.percentile(times, 90) * 1e6:.1f})")
print(f"device call - GPU time: {(dcall - (gpu or b['wall_s'])) * 1e6:.1f} us")

# A chain k2(k1(x)) at 2^20 on device arrays against one program of both steps.
M = 1 << 20
STEP1 = f"param N = {M}\ninput x: f32[N]\noutput y: f32[N] = compute N |i| x[i] * 2.0 + 1.0\n"
STEP2 = f"param N = {M}\ninput y: f32[N]\noutput z: f32[N] = compute N |i| y[i] * y[i] - 0.5\n"
BOTH = (f"param N = {M}\ninput x: f32[N]\nlet y = compute N |i| x[i] * 2.0 + 1.0\n"
        "output z: f32[N] = compute N |i| y[i] * y[i] - 0.5\n")
k1, k2, kb = (texpr.compile(s) for s in (STEP1, STEP2, BOTH))
x = texpr.asarray(r.standard_normal(M).astype(np.float32), device=kb.device)
np.testing.assert_allclose(k2(y=k1(x=x)).numpy(), kb(x=x).numpy(), rtol=1e-6)


def chained():
    k2(y=k1(x=x)).numpy()


def fused():
    kb(x=x).numpy()


chain_jit = texpr.jit(lambda x: k2(y=k1(x=x)))


def jitted():
    chain_jit(x).numpy()


np.testing.assert_allclose(chain_jit(x).numpy(), kb(x=x).numpy(), rtol=1e-6)
for f in (chained, jitted, fused):
    f()
runs = {chained: [], jitted: [], fused: []}
for _ in range(CHAIN_RUNS):
    for f in (chained, jitted, fused):
        t0 = time.perf_counter()
        f()
        runs[f].append(time.perf_counter() - t0)
c, j, f1 = (statistics.median(runs[f]) for f in (chained, jitted, fused))
print(f"chain k2(k1(x)) on device arrays at 2^20, one read: median {c * 1e3:.2f} ms; "
      f"the same under texpr.jit: {j * 1e3:.2f} ms; "
      f"one program of both steps: {f1 * 1e3:.2f} ms; ratios {c / f1:.2f} and {j / f1:.2f} "
      f"(medians of {CHAIN_RUNS} interleaved runs)")
