"""cuBLAS f16 matmul (torch.matmul on float16 tensors, f32 accumulation as
cuBLAS does by default) at the sizes of texprc's `matmul_f16` bench rows:
the reference `tools/gpu-sitting` sets beside texprc in the same sitting.
CUDA events; median of RUNS after warm-ups. Prints one row per size.

    RUNS=10 python3 torch-f16.py 4096 8192
"""
import os, statistics, sys

try:
    import torch
except ImportError:
    print("torch-f16: no torch on this machine")
    sys.exit(0)
if not torch.cuda.is_available():
    print("torch-f16: no CUDA device")
    sys.exit(0)

RUNS = int(os.environ.get("RUNS", "10"))
print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
print("| kernel | size | median ms | TFLOP/s |")
for n in [int(a) for a in sys.argv[1:]] or [4096, 8192]:
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    ts = []
    for _ in range(RUNS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); a @ b; e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    ms = statistics.median(ts)
    print(f"| torch matmul f16 (cuBLAS) | {n}^3 | {ms:.4f} | {2 * n**3 / ms / 1e9:.1f} |")
