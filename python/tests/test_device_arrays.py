"""Device arrays: texpr.asarray, DeviceArray, kernels that take and give
device arrays (chained calls read nothing back before the end), DLPack in
and out, and what a call on numpy arrays moves."""

import numpy as np
import pytest

import texpr
from conftest import REPO

SAXPY = (REPO / "examples" / "saxpy.te").read_text()

STEP1 = """param R = 64
param C = 48
input x: f32[R * C]
output y: f32[R * C] = compute R * C |i| x[i] * 0.5 + 1.0
"""
STEP2 = """param R = 64
param C = 48
input y: f32[R * C]
output z: f32[R] = compute R |r| reduce C |j| y[r * C + j] * y[r * C + j]
"""
BOTH = """param R = 64
param C = 48
input x: f32[R * C]
let y = compute R * C |i| x[i] * 0.5 + 1.0
output z: f32[R] = compute R |r| reduce C |j| y[r * C + j] * y[r * C + j]
"""


@pytest.mark.parametrize(
    "dtype, shape",
    [(np.float32, (4, 3)), (np.float16, (5,)), (np.int32, (2, 3, 2)), (np.uint32, (7,))],
)
def test_asarray_keeps_values_dtype_and_shape(gpu, dtype, shape):
    host = (np.arange(np.prod(shape)) * 3 - 5).astype(dtype).reshape(shape)
    a = texpr.asarray(host, device=gpu)
    assert isinstance(a, texpr.DeviceArray)
    assert a.shape == shape and a.dtype == np.dtype(dtype)
    assert a.size == host.size and a.ndim == len(shape) and a.nbytes == host.nbytes
    back = a.numpy()
    assert back.dtype == np.dtype(dtype) and back.shape == shape
    assert np.array_equal(back, host)
    assert np.array_equal(np.asarray(a), host)
    assert len(a) == shape[0]
    assert "DeviceArray" in repr(a)
    # Already there: the same object.
    assert texpr.asarray(a, device=gpu) is a
    flat = a.reshape(host.size)
    assert a.reshape((host.size,)).shape == (host.size,)
    assert flat.shape == (host.size,) and np.array_equal(flat.numpy(), host.ravel())
    with pytest.raises(ValueError):
        a.reshape(host.size + 1)


def test_asarray_refuses_other_dtypes(gpu):
    with pytest.raises(TypeError, match="float64"):
        texpr.asarray(np.zeros(3), device=gpu)
    # A list is taken as numpy takes it, with the dtype given.
    a = texpr.asarray([1, 2, 3], dtype=np.int32, device=gpu)
    assert a.numpy().tolist() == [1, 2, 3]


def test_a_chain_on_device_arrays_matches_the_interpreter_and_reads_back_once(gpu):
    k1 = texpr.compile(STEP1, device=gpu)
    k2 = texpr.compile(STEP2, device=gpu)
    x = np.random.default_rng(3).standard_normal(64 * 48).astype(np.float32)
    want = texpr.eval(BOTH, x=x)
    xd = texpr.asarray(x, device=gpu)
    before = texpr.transfers(gpu)
    y = k1(x=xd)
    z = k2(y=y)
    between = texpr.transfers(gpu)
    assert isinstance(y, texpr.DeviceArray) and isinstance(z, texpr.DeviceArray)
    assert z.shape == (64,) and z.dtype == np.float32
    assert between["reads"] == before["reads"], "a read before the chain's end"
    assert between["uploads"] == before["uploads"]
    assert between["launches"] == before["launches"] + 2
    got = z.numpy()
    after = texpr.transfers(gpu)
    assert after["reads"] == between["reads"] + 1
    np.testing.assert_allclose(got, want, rtol=1e-5)
    ref = ((x * np.float32(0.5) + np.float32(1.0)) ** 2).reshape(64, 48).sum(axis=1)
    np.testing.assert_allclose(got, ref, rtol=1e-4)


def test_dropped_arrays_buffers_are_made_again_from_the_pool(gpu):
    k1 = texpr.compile(STEP1, device=gpu)
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(64 * 48).astype(np.float32) for _ in range(4)]
    texpr.asarray(xs[0], device=gpu)  # the device is open
    start = gpu.memory_pool["reused"]
    for x in xs:
        # Each call's output takes the buffer of the one before, which the
        # last round dropped: its old values never show.
        got = k1(x=texpr.asarray(x, device=gpu)).numpy()
        np.testing.assert_allclose(got, x * np.float32(0.5) + np.float32(1.0), rtol=1e-6)
    pool = gpu.memory_pool
    assert pool["reused"] - start >= 3 * 3, pool  # input, output and staging
    assert 0 < pool["bytes"] <= pool["limit"], pool
    gpu.free_memory_pool()
    assert (gpu.memory_pool["buffers"], gpu.memory_pool["bytes"]) == (0, 0)


def test_a_call_on_numpy_moves_each_input_and_output_once(gpu):
    k = texpr.compile(SAXPY, defines={"N": 1000}, device=gpu)
    r = np.random.default_rng(1)
    ins = {
        "a": np.float32([1.5]),
        "x": r.standard_normal(1000).astype(np.float32),
        "y": r.standard_normal(1000).astype(np.float32),
    }
    k(**ins)  # the first call loads the kernel
    before = texpr.transfers(gpu)
    out = k(**ins)
    after = texpr.transfers(gpu)
    assert isinstance(out, np.ndarray) and out.shape == (1000,)
    assert after["uploads"] - before["uploads"] == 3
    assert after["upload_bytes"] - before["upload_bytes"] == (1 + 2 * 1000) * 4
    assert after["reads"] - before["reads"] == 1
    assert after["read_bytes"] - before["read_bytes"] == 1000 * 4
    np.testing.assert_allclose(out, texpr.eval(SAXPY, defines={"N": 1000}, **ins), rtol=1e-6)


def test_mixed_inputs_give_device_arrays(gpu):
    k = texpr.compile(SAXPY, defines={"N": 256}, device=gpu)
    r = np.random.default_rng(2)
    a, x, y = np.float32([2.0]), r.standard_normal(256).astype(np.float32), np.ones(256, np.float32)
    out = k(a=a, x=texpr.asarray(x, device=gpu), y=y)
    assert isinstance(out, texpr.DeviceArray)
    np.testing.assert_allclose(out.numpy(), k(a=a, x=x, y=y), rtol=0, atol=0)


def test_device_arrays_that_do_not_fit_are_refused(gpu):
    k = texpr.compile(SAXPY, defines={"N": 64}, device=gpu)
    a = texpr.asarray(np.float32([1.0]), device=gpu)
    x = texpr.asarray(np.zeros(64, np.float32), device=gpu)
    with pytest.raises(ValueError, match="`x` has 63 elements"):
        k(a=a, x=texpr.asarray(np.zeros(63, np.float32), device=gpu), y=x)
    with pytest.raises(TypeError, match="`y` is a device array of dtype int32"):
        k(a=a, x=x, y=texpr.asarray(np.zeros(64, np.int32), device=gpu))
    with pytest.raises(TypeError, match="missing input `y`"):
        k(a=a, x=x)
    other = texpr.Device(0)
    foreign = texpr.asarray(np.zeros(64, np.float32), device=other)
    with pytest.raises(texpr.DeviceError, match="E0417"):
        k(a=a, x=foreign, y=x)
    # asarray moves it to the device asked for.
    moved = texpr.asarray(foreign, device=gpu)
    assert moved is not foreign
    assert isinstance(k(a=a, x=moved, y=x), texpr.DeviceArray)


class Tensor:
    """An object that speaks DLPack and nothing else (as a PyTorch CPU tensor does)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_in_and_out(gpu):
    if not hasattr(np, "from_dlpack"):
        pytest.skip("numpy without from_dlpack (numpy < 1.22)")
    k = texpr.compile(SAXPY, defines={"N": 128}, device=gpu)
    r = np.random.default_rng(4)
    a, x, y = np.float32([0.5]), r.standard_normal(128).astype(np.float32), r.standard_normal(128).astype(np.float32)
    want = k(a=a, x=x, y=y)
    # DLPack objects as inputs: numpy out, as for numpy in.
    got = k(a=Tensor(a), x=Tensor(x), y=Tensor(y))
    assert isinstance(got, np.ndarray)
    assert np.array_equal(got, want)
    # texpr.from_dlpack: onto the device.
    xd = texpr.from_dlpack(Tensor(x), device=gpu)
    assert isinstance(xd, texpr.DeviceArray) and np.array_equal(xd.numpy(), x)
    out = k(a=a, x=xd, y=y)
    # A device array's host copy through DLPack.
    assert out.__dlpack_device__() == (1, 0)
    assert np.array_equal(np.from_dlpack(out), want)
    with pytest.raises(TypeError, match="__dlpack__"):
        texpr.from_dlpack([1.0, 2.0])


def test_strided_inputs_are_copied_by_numpy(gpu):
    k = texpr.compile(SAXPY, defines={"N": 500}, device=gpu)
    r = np.random.default_rng(5)
    x = r.standard_normal(1000).astype(np.float32)
    y = r.standard_normal((500, 2)).astype(np.float32)[:, 1]
    a = np.float32([3.0])
    got = k(a=a, x=x[::2], y=y)
    want = k(a=a, x=np.ascontiguousarray(x[::2]), y=np.ascontiguousarray(y))
    assert np.array_equal(got, want)
    on_device = k(a=a, x=texpr.asarray(x[::2], device=gpu), y=y)
    assert np.array_equal(on_device.numpy(), want)
