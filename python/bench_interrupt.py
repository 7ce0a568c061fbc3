"""Ctrl-C latency: runs a loop of a million one-kernel steps on the main
thread, sends it SIGINT from another thread once it has made 20
submissions, and prints the median and largest time from the signal to the
KeyboardInterrupt over TRIALS calls, with the submissions each call made.

    python python/bench_interrupt.py [TRIALS]      # default 9
"""

import os
import signal
import statistics
import sys
import threading
import time

import numpy as np

import texpr

TRIALS = int(sys.argv[1]) if len(sys.argv) > 1 else 9
LOOP = """
param T = 1000000
input x0: f32[64]
output x = iterate T from x0 |x, t| compute 64 |i| x[i] * 0.5 + 1.0
"""
k = texpr.compile(LOOP, schedule="default")
x0 = np.zeros(64, np.float32)
waits, made = [], []
for _ in range(TRIALS):
    base = texpr.stats()["signal_checks"]
    sent = []

    def interrupt():
        while texpr.stats()["signal_checks"] < base + 20:
            time.sleep(0.001)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt)
    t.start()
    try:
        k(x0=x0)
        raise SystemExit("the call ran to its end")
    except KeyboardInterrupt:
        waits.append(time.perf_counter() - sent[0])
    t.join()
    made.append(texpr.stats()["signal_checks"] - base)
print(
    f"signal to KeyboardInterrupt: median {statistics.median(waits) * 1e3:.2f} ms, "
    f"max {max(waits) * 1e3:.2f} ms over {TRIALS} calls; submissions made "
    f"{min(made)}-{max(made)} of {1000000 // 16}"
)
