"""Faults that must not lose the process: a forked child, Ctrl-C during a
long call, an allocation the host cannot make, an unaligned input, and
defines that are not ints of the language's range."""

import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import texpr
from conftest import REPO

SAXPY = (REPO / "examples" / "saxpy.te").read_text()
N = 1024

# A loop of T steps, one small kernel a step: a call submits T / 16 times.
LOOP = """
param T = 100
input x0: f32[64]
output x = iterate T from x0 |x, t| compute 64 |i| x[i] * 0.5 + 1.0
"""


def saxpy_inputs(seed=0):
    r = np.random.default_rng(seed)
    return {
        "a": np.float32([r.standard_normal()]),
        "x": r.standard_normal(N).astype(np.float32),
        "y": r.standard_normal(N).astype(np.float32),
    }


@pytest.fixture(scope="module")
def saxpy(gpu):
    return texpr.compile(SAXPY, defines={"N": N}, schedule="default", device=gpu)


# --- defines ---------------------------------------------------------------------


def test_defines_take_ints_not_bools():
    for b in (True, False, np.bool_(True)):
        with pytest.raises(TypeError, match=r"defines\['N'\] is a bool.*a param's value is an int"):
            texpr.check(SAXPY, defines={"N": b})
    with pytest.raises(TypeError, match=r"defines\['N'\] is a float"):
        texpr.check(SAXPY, defines={"N": 4.0})
    # numpy's ints are ints.
    assert texpr.check(SAXPY, defines={"N": np.int64(8)}) == []


def test_defines_up_to_the_languages_limit():
    for v in (2**64, 2**63, -(2**63) - 1):
        with pytest.raises(ValueError, match=r"out of range: a param's value is a 64-bit signed integer"):
            texpr.check(SAXPY, defines={"N": v})
    # In range, a size that does not fit in an i32 is the checker's own error.
    assert [d.code for d in texpr.check(SAXPY, defines={"N": 2**63 - 1})] == ["E0108"]


# --- fork ------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_opens_its_own_device(saxpy):
    i = saxpy_inputs(3)
    want = saxpy(**i)  # the parent's device is open, its buffers made
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            got = saxpy(**i)
            again = texpr.compile(SAXPY, defines={"N": N}, schedule="default")(**i)
            code = 0 if np.array_equal(got, want) and np.array_equal(again, want) else 2
        finally:
            os._exit(code)
    # A child that hangs is killed after a generous limit (a fault, not a timing).
    for _ in range(6000):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        threading.Event().wait(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child did not finish its call")
    assert os.waitstatus_to_exitcode(status) == 0
    # The parent's device still works.
    np.testing.assert_array_equal(saxpy(**i), want)


# --- Ctrl-C ----------------------------------------------------------------------


def test_ctrl_c_interrupts_a_long_call_between_submissions(gpu, saxpy):
    steps = 1_000_000
    k = texpr.compile(LOOP, defines={"T": steps}, schedule="default", device=gpu)
    submits = steps // 16
    x0 = np.zeros(64, np.float32)
    base = texpr.stats()["signal_checks"]
    sent = []

    def interrupt_once_running():
        # Progress, not time: the signal goes once the call has made 20 submissions.
        while texpr.stats()["signal_checks"] < base + 20:
            threading.Event().wait(0.001)
        sent.append(texpr.stats()["signal_checks"])
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt_once_running, daemon=True)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        k(x0=x0)
    t.join()
    stopped = texpr.stats()["signal_checks"] - base
    # The call stopped soon after the signal, far from its end.
    assert stopped < submits // 2, (stopped, submits)
    assert stopped >= sent[0] - base
    # The device is usable: the next calls compute right.
    i = saxpy_inputs(5)
    np.testing.assert_array_equal(saxpy(**i), texpr.eval(SAXPY, defines={"N": N}, **i))
    short = texpr.compile(LOOP, defines={"T": 100}, schedule="default", device=gpu)
    x1 = np.arange(64, dtype=np.float32)
    np.testing.assert_allclose(short(x0=x1), texpr.eval(LOOP, defines={"T": 100}, x0=x1), rtol=1e-6)


def test_a_call_from_another_thread_is_not_checked(saxpy):
    base = texpr.stats()["signal_checks"]
    out = []
    t = threading.Thread(target=lambda: out.append(saxpy(**saxpy_inputs(1))))
    t.start()
    t.join()
    assert len(out) == 1
    assert texpr.stats()["signal_checks"] == base


# --- memory ----------------------------------------------------------------------

# A child process makes a kernel whose result is as large as the device
# binds (up to 512 MiB; lavapipe's 128 MiB) and calls it once
# (its device buffers made and kept), then limits its own address space
# (RLIMIT_AS) to what it holds plus 64 MiB: calling it again cannot read its
# result back into host memory, and a kernel of another size cannot make its
# buffers. Each refusal is an exception; with the limit lifted both run.
ALLOC_CHILD = textwrap.dedent(
    """
    import resource
    import numpy as np, texpr

    src = "param N = 4\\noutput y = compute N |i| f32(i % 1000)\\n"
    want = np.arange(4096) % 1000
    # The largest buffer the device binds, up to 512 MiB.
    limit = next(int(l.split("=")[1]) for l in texpr.Device().target.splitlines()
                 if l.startswith("max_storage_buffer_binding_size"))
    n = min(limit // 4, 1 << 27) - 4096
    k = texpr.compile(src, defines={"N": n})
    k2 = texpr.compile(src, defines={"N": n + 4096})
    assert np.array_equal(k()[:4096], want)
    vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vm + (64 << 20), hard))
    for name, kernel in (("host", k), ("device", k2)):
        try:
            kernel()
            print(name, "ran")
        except (MemoryError, texpr.DeviceError) as e:
            print(name, type(e).__name__, str(e).splitlines()[0])
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    print("after", np.array_equal(k()[:4096], want) and np.array_equal(k2()[-4096:], np.arange(n, n + 4096) % 1000))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_an_allocation_that_cannot_be_made_is_an_exception(gpu):
    r = subprocess.run([sys.executable, "-c", ALLOC_CHILD], capture_output=True, text=True, timeout=900)
    # Alive: no abort, no signal.
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-3000:])
    host, device, after = r.stdout.splitlines()[-3:]
    # The host's read-back is a MemoryError naming its code (E0418).
    assert host.startswith("host MemoryError E0418"), r.stdout
    # The device's buffers: a MemoryError or a DeviceError, whichever ran out.
    assert device.startswith(("device MemoryError", "device DeviceError")), r.stdout
    assert after == "after True", r.stdout


# --- unaligned and strided inputs ------------------------------------------------


def test_unaligned_and_strided_inputs_are_read_right(saxpy):
    i = saxpy_inputs(9)
    want = saxpy(**i)
    raw = np.zeros(4 * N + 1, np.uint8)
    unaligned = raw[1:].view(np.float32)
    unaligned[:] = i["x"]
    assert not unaligned.flags.aligned
    np.testing.assert_array_equal(saxpy(a=i["a"], x=unaligned, y=i["y"]), want)
    strided = np.zeros(2 * N, np.float32)
    strided[::2] = i["y"]
    np.testing.assert_array_equal(saxpy(a=i["a"], x=i["x"], y=strided[::2]), want)
