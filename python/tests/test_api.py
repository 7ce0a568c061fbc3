"""The Python API: kernels' attributes, dtypes and shapes, reuse, threads,
the GIL, errors as exceptions, bench, tune, devices and block programs."""

import os
import threading
import time

import numpy as np
import pytest

import texpr
from conftest import REPO

SAXPY = (REPO / "examples" / "saxpy.te").read_text()
N = 1024


def saxpy_inputs(seed=0, n=N):
    r = np.random.default_rng(seed)
    return {
        "a": np.float32([r.standard_normal()]),
        "x": r.standard_normal(n).astype(np.float32),
        "y": r.standard_normal(n).astype(np.float32),
    }


@pytest.fixture(scope="module")
def saxpy(gpu):
    # The default schedule (test_examples.py runs the heuristic's too).
    return texpr.compile(SAXPY, defines={"N": N}, schedule="default", device=gpu)


def test_kernel_attributes(saxpy):
    assert "@compute" in saxpy.wgsl
    assert saxpy.schedule.startswith("optimize = off") or "out:" in saxpy.schedule
    assert saxpy.schedule_origin == "default"
    [k] = saxpy.kernels
    assert k["entry_point"] in saxpy.wgsl
    assert k["workgroup_size"][0] * k["dispatch"][0] >= N
    assert [b["buffer"] for b in k["bindings"]] == ["a", "x", "y", "out"]
    assert [b["access"] for b in k["bindings"]] == ["read", "read", "read", "read_write"]
    assert saxpy.inputs == {"a": ("float32", 1), "x": ("float32", N), "y": ("float32", N)}
    assert saxpy.outputs == {"out": ("float32", N)}
    r = repr(saxpy)
    assert r.startswith("<texpr.Kernel") and "`x`: f32[1024]" in r and k["entry_point"] in r


def test_saxpy_exact(saxpy):
    i = saxpy_inputs()
    out = saxpy(**i)
    ax = np.float64(i["a"][0]) * i["x"]
    want = ax + i["y"]
    # One multiply and one add (or an fma): each rounds once, by at most half an ulp.
    ulp = lambda v: np.spacing(np.abs(v).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(out - want) <= ulp(ax) + ulp(want))
    np.testing.assert_array_equal(out, texpr.eval(SAXPY, defines={"N": N}, **i))


def test_schedule_text_round_trips(gpu):
    k = texpr.compile(SAXPY, defines={"N": N}, schedule="heuristic", device=gpu)
    again = texpr.compile(SAXPY, defines={"N": N}, schedule=k.schedule, device=gpu)
    assert again.wgsl == k.wgsl
    assert again.schedule_origin.startswith("pinned")


def test_target_by_name(gpu):
    k = texpr.compile(SAXPY, defines={"N": N}, target="nvidia", device=gpu)
    assert "@compute" in k.wgsl
    with pytest.raises(ValueError, match="no-such-target"):
        texpr.compile(SAXPY, target="no-such-target", device=gpu)
    with pytest.raises(ValueError, match="not a schedule"):
        texpr.compile(SAXPY, schedule="out: warp-speed", device=gpu)


# --- inputs: dtypes, shapes, names -------------------------------------------

def test_wrong_dtype_is_a_type_error(saxpy):
    i = saxpy_inputs()
    i["x"] = i["x"].astype(np.float64)
    with pytest.raises(TypeError, match=r"input `x` has dtype float64: expected f32\[1024\].*float32"):
        saxpy(**i)


def test_wrong_length_is_a_value_error(saxpy):
    i = saxpy_inputs()
    i["y"] = i["y"][:1000]
    with pytest.raises(ValueError, match=r"input `y` has 1000 elements .*expected f32\[1024\]"):
        saxpy(**i)


def test_missing_input_is_a_type_error(saxpy):
    i = saxpy_inputs()
    del i["a"]
    with pytest.raises(TypeError, match=r"missing input `a`: expected f32\[1\]"):
        saxpy(**i)


def test_unknown_input_is_a_type_error(saxpy):
    with pytest.raises(TypeError, match=r"unknown input `z`"):
        saxpy(z=np.zeros(3, np.float32), **saxpy_inputs())


def test_not_an_array_is_a_type_error(saxpy):
    i = saxpy_inputs()
    i["x"] = list(i["x"])
    with pytest.raises(TypeError, match=r"input `x` must be a numpy array.*got a list"):
        saxpy(**i)


def test_eval_checks_inputs_the_same_way():
    i = saxpy_inputs()
    i["x"] = i["x"].astype(np.int32)
    with pytest.raises(TypeError, match=r"input `x` has dtype int32"):
        texpr.eval(SAXPY, defines={"N": N}, **i)


def test_two_dimensional_inputs_read_row_major(gpu):
    src = (REPO / "examples" / "matmul.te").read_text()
    d = {"M": 8, "N": 6, "K": 5}
    k = texpr.compile(src, defines=d, device=gpu)
    r = np.random.default_rng(3)
    a = r.standard_normal((8, 5)).astype(np.float32)
    b_t = r.standard_normal((6, 5)).astype(np.float32)
    b = b_t.T  # (5, 6), not contiguous: read in row-major order all the same
    assert not b.flags["C_CONTIGUOUS"]
    got = k(a=a, b=b)
    flat = k(a=a.ravel(), b=np.ascontiguousarray(b).ravel())
    np.testing.assert_array_equal(got, flat)
    want = (a.astype(np.float64) @ b).ravel()
    assert np.all(np.abs(got - want) <= 2 * 5 * 2**-24 * (np.abs(a) @ np.abs(b)).ravel())
    with pytest.raises(ValueError, match=r"input `a` has 30 elements \(shape \[5, 6\]\)"):
        k(a=np.zeros((5, 6), np.float32), b=b)


def test_integer_and_f16_dtypes(gpu):
    src = """
input a: i32[8]
input b: u32[8]
input h: f16[8]
output s = compute 8 |i| a[i] * 3 - 7
output t = compute 8 |i| b[i] / 2u + 1u
output g = compute 8 |i| h[i] * 2.0h + 0.5h
"""
    k = texpr.compile(src, device=gpu)
    a = np.arange(-4, 4, dtype=np.int32)
    b = np.arange(8, dtype=np.uint32) * 1000000000
    h = np.linspace(-2, 2, 8).astype(np.float16)
    out = k(a=a, b=b, h=h)
    assert out["s"].dtype == np.int32 and out["t"].dtype == np.uint32 and out["g"].dtype == np.float16
    np.testing.assert_array_equal(out["s"], a * 3 - 7)
    np.testing.assert_array_equal(out["t"], b // 2 + 1)
    # h * 2 is exact in binary16; + 0.5 rounds once, as numpy's float16 does.
    np.testing.assert_array_equal(out["g"], h * np.float16(2) + np.float16(0.5))
    interp = texpr.eval(src, a=a, b=b, h=h)
    for name in out:
        np.testing.assert_array_equal(out[name], interp[name])
    with pytest.raises(TypeError, match=r"input `h` has dtype float32: expected f16\[8\]"):
        k(a=a, b=b, h=h.astype(np.float32))


def test_scalar_inputs_take_python_numbers(gpu):
    src = """
input a: f32
input k: i32
input m: u32
input h: f16
input x: f32[8]
output y = compute 8 |i| a * x[i] + f32(k) + f32(m)
output g = compute 8 |i| h * 2.0h
"""
    kern = texpr.compile(src, device=gpu)
    x = np.arange(8, dtype=np.float32)
    out = kern(a=0.5, k=-3, m=7, h=1.5, x=x)
    np.testing.assert_array_equal(out["y"], np.float32(0.5) * x + np.float32(-3) + np.float32(7))
    np.testing.assert_array_equal(out["g"], np.full(8, 3.0, np.float16))
    # A one-element array is the same input; the interpreter agrees.
    same = kern(a=np.float32([0.5]), k=np.int32([-3]), m=np.uint32([7]), h=np.float16([1.5]), x=x)
    np.testing.assert_array_equal(same["y"], out["y"])
    interp = texpr.eval(src, a=0.5, k=-3, m=7, h=1.5, x=x)
    np.testing.assert_array_equal(interp["y"], out["y"])
    with pytest.raises(TypeError, match=r"input `k` is an i32: expected an int, got a float"):
        kern(a=0.5, k=1.5, m=7, h=1.5, x=x)
    with pytest.raises(OverflowError, match=r"input `m`: -1 does not fit a u32"):
        kern(a=0.5, k=1, m=-1, h=1.5, x=x)
    with pytest.raises(OverflowError, match=r"input `k`: 2147483648 does not fit an i32"):
        kern(a=0.5, k=2**31, m=7, h=1.5, x=x)
    with pytest.raises(TypeError, match=r"must be a numpy array"):
        kern(a=True, k=1, m=7, h=1.5, x=x)
    # A vector input never takes a number.
    with pytest.raises(TypeError, match=r"input `x` must be a numpy array"):
        kern(a=0.5, k=1, m=7, h=1.5, x=2.0)


# --- reuse, threads, the GIL --------------------------------------------------

def test_a_kernel_called_1000_times_reuses_its_pipelines(saxpy, gpu):
    i = saxpy_inputs(1)
    want = saxpy(**i)
    made = gpu.pipelines
    assert made >= 1
    for n in range(1000):
        i["a"][0] = n
        out = saxpy(**i)
        if n % 100 == 0:
            np.testing.assert_array_equal(out, texpr.eval(SAXPY, defines={"N": N}, **i))
    assert gpu.pipelines == made
    i["a"][0] = want.dtype.type(0)
    np.testing.assert_array_equal(saxpy(**i), i["y"])


def test_threads_call_one_kernel_at_once(saxpy):
    errors = []
    results = {}

    def work(t):
        try:
            for n in range(25):
                i = saxpy_inputs(seed=100 * t + n)
                got = saxpy(**i)
                if not np.array_equal(got, texpr.eval(SAXPY, defines={"N": N}, **i)):
                    errors.append(f"thread {t} call {n}: wrong result")
            results[t] = True
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {t}: {e!r}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    assert len(results) == 8


def test_the_gil_is_released_while_the_gpu_works(gpu):
    src = (REPO / "examples" / "matmul.te").read_text()
    d = {"M": 256, "N": 256, "K": 256}
    k = texpr.compile(src, defines=d, schedule="default", device=gpu)
    r = np.random.default_rng(0)
    a = r.standard_normal(256 * 256).astype(np.float32)
    b = r.standard_normal(256 * 256).astype(np.float32)
    k(a=a, b=b)  # warm: pipelines made
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    th = threading.Thread(target=tick)
    th.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    k(a=a, b=b)
    t1 = time.perf_counter()
    stop.set()
    th.join()
    during = [t for t in ticks if t0 < t < t1]
    # Held, no Python thread would run during the call.
    assert t1 - t0 > 0.005, "the call is too short to tell"
    assert len(during) >= 3, f"{len(during)} ticks during a {1e3 * (t1 - t0):.1f} ms call"


# --- errors -----------------------------------------------------------------------

BAD = "input x: f32[4]\noutput y = compute 4 |i| x[i] + q[i]\n"


def test_compile_error_carries_located_diagnostics(gpu, tmp_path):
    path = tmp_path / "bad.te"
    path.write_text(BAD)
    with pytest.raises(texpr.CompileError) as e:
        texpr.compile(path, device=gpu)
    text = str(e.value)
    # The text texprc prints: the code, the message, the file:line:column, the source line.
    assert text.startswith("error[E0101]: unknown name `q`")
    assert f"{path}:2:33" in text
    assert "output y = compute 4 |i| x[i] + q[i]" in text
    [d] = e.value.diagnostics
    assert (d.code, d.severity, d.line, d.column) == ("E0101", "error", 2, 33)
    assert "unknown name `q`" in d.message
    with pytest.raises(texpr.CompileError):
        texpr.eval(BAD, x=np.zeros(4, np.float32))


def test_check_lists_diagnostics():
    assert texpr.check(SAXPY) == []
    diags = texpr.check("input x: f32[4]\noutput y = compute 4 |i| x[j] + zz[i]\n")
    assert [d.code for d in diags] == ["E0101", "E0101"] or diags[0].code == "E0101"
    assert all(isinstance(d, texpr.Diagnostic) for d in diags)
    assert diags[0].line == 2
    assert texpr.check("output y = compute 4 |i| 1.0 +")[0].code.startswith("E00")


def test_defines_are_checked():
    with pytest.raises(TypeError, match="a param's value is an int"):
        texpr.check(SAXPY, defines={"N": "big"})


def test_a_lost_device_raises_and_the_next_call_reopens_it():
    dev = texpr.Device()
    k = texpr.compile(SAXPY, defines={"N": N}, schedule="default", device=dev)
    i = saxpy_inputs(7)
    want = k(**i)
    dev.lose()
    with pytest.raises(texpr.DeviceError, match="E0404"):
        k(**i)
    np.testing.assert_array_equal(k(**i), want)


def test_no_such_adapter_is_a_device_error():
    with pytest.raises(texpr.DeviceError):
        texpr.compile(SAXPY, device=texpr.Device("no-such-adapter-anywhere"))


def test_devices_lists_the_adapters(gpu):
    found = texpr.devices()
    assert found and all({"index", "name", "backend"} <= set(d) for d in found)
    assert gpu.info["name"] in [d["name"] for d in found]
    assert "max_storage_buffers_per_shader_stage" in gpu.target or "=" in gpu.target
    assert texpr.Device(0).info["name"] == found[0]["name"]


# --- bench and tune -----------------------------------------------------------

def test_bench_times_on_the_device(saxpy):
    t = saxpy.bench(runs=5, warmups=1)
    assert t["runs"] == 5
    assert 0 < t["median_s"] < 1
    assert t["wall_s"] > 0
    t2 = saxpy.bench(runs=3, **saxpy_inputs())
    assert t2["runs"] == 3


def test_tune_stores_in_the_cache_compile_reads(gpu, tmp_path, monkeypatch):
    monkeypatch.setenv("TEXPR_CACHE", str(tmp_path / "schedules.txt"))
    src = (REPO / "examples" / "chain.te").read_text()
    d = {"N": 4096}
    found = texpr.tune(src, defines=d, budget_s=2.0, runs=2, warmups=1, device=gpu)
    assert found["ms"] > 0 and found["tried"] <= found["total"]
    assert found["cache"] == str(tmp_path / "schedules.txt")
    assert (tmp_path / "schedules.txt").exists()
    k = texpr.compile(src, defines=d, device=gpu)
    assert k.schedule_origin.startswith("tuned for")
    assert k.schedule == found["schedule"]
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    np.testing.assert_allclose(k(x=x), texpr.eval(src, defines=d, x=x), rtol=1e-6, atol=1e-7)


# --- block programs ---------------------------------------------------------------

@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_block_run_against_numpy(gpu, device):
    src = (REPO / "examples" / "blocks" / "gemm_bias_relu.air").read_text()
    r = np.random.default_rng(5)
    a = r.standard_normal((6, 5)).astype(np.float32)
    b = r.standard_normal((5, 7)).astype(np.float32)
    bias = r.standard_normal((1, 7)).astype(np.float32)
    c = texpr.block.run(src, grid=(2, 2), tile=2, inputs={"a": a, "b": b, "bias": bias}, device=device)
    assert c.shape == (6, 7) and c.dtype == np.float32
    want = np.maximum(a.astype(np.float64) @ b + bias, 0)
    bound = 2 * 6 * 2**-24 * (np.abs(a) @ np.abs(b) + np.abs(bias))
    assert np.all(np.abs(c - want) <= bound), np.abs(c - want).max()


def test_block_run_errors():
    src = (REPO / "examples" / "blocks" / "gemm_bias_relu.air").read_text()
    ok = {"a": np.zeros((6, 5), np.float32), "b": np.zeros((5, 7), np.float32), "bias": np.zeros((1, 7), np.float32)}
    with pytest.raises(ValueError, match=r"input `b` has shape \[7, 5\]"):
        texpr.block.run(src, tile=2, inputs={**ok, "b": np.zeros((7, 5), np.float32)})
    with pytest.raises(TypeError, match=r"missing input `bias`"):
        texpr.block.run(src, tile=2, inputs={"a": ok["a"], "b": ok["b"]})
    with pytest.raises(TypeError, match=r"input `a` has dtype float64"):
        texpr.block.run(src, tile=2, inputs={**ok, "a": np.zeros((6, 5))})
    with pytest.raises(texpr.BlockError) as e:
        texpr.block.run("func f {\n  %a = input : f32[4 x 4, 2 x 2]\n  ret %b\n}\n")
    assert e.value.diagnostics and e.value.diagnostics[0].code.startswith("E05")
