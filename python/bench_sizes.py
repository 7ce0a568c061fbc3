"""Memory over many sizes: compiles saxpy for sizes 1..SIZES (the compile
cache off, so each is a compile and new pipelines), calls each once and drops
it, and prints the process's resident memory after 10 sizes and after all,
with the pipelines the device keeps (and RSS at checkpoints between).

    python python/bench_sizes.py [SIZES]      # default 10000
"""

import os
import sys
from pathlib import Path

import numpy as np

os.environ["TEXPR_MODULE_CACHE"] = "0"
import texpr  # noqa: E402

SIZES = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
src = (Path(__file__).resolve().parents[1] / "examples" / "saxpy.te").read_text()
dev = texpr.Device()


def rss_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


at10 = None
marks = []
for n in range(1, SIZES + 1):
    k = texpr.compile(src, defines={"N": n}, schedule="default", device=dev)
    x = np.ones(n, np.float32)
    assert k(a=np.float32([2]), x=x, y=x)[-1] == 3.0
    del k
    if n == 10:
        at10 = rss_mib()
    if n in (100, 300, 1000, 3000):
        marks.append(f"{n}: {rss_mib():.0f}")
print(f"RSS after 10 sizes: {at10:.0f} MiB; after {SIZES}: {rss_mib():.0f} MiB "
      f"(+{rss_mib() - at10:.0f}); pipelines kept {dev.pipelines} of {dev.pipeline_limit}; "
      f"compiles {texpr.stats()['compiles']}; MiB at {', '.join(marks)}")
