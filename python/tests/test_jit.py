"""texpr.jit: kernel calls traced into one program, fused across the
calls, compiled once per argument types, run once per call."""

import numpy as np
import pytest

import texpr

N = 4096
STEP1 = f"param N = {N}\ninput x: f32[N]\noutput y: f32[N] = compute N |i| x[i] * 2.0 + 1.0\n"
STEP2 = (
    f"param N = {N}\ninput y: f32[N]\ninput b: f32\n"
    "output z: f32[N] = compute N |i| y[i] * y[i] - b\n"
)
SPLIT = (
    f"param N = {N}\ninput x: f32[N]\n"
    "output lo: f32[N] = compute N |i| min(x[i], 0.0)\n"
    "output hi: f32[N] = compute N |i| max(x[i], 0.0)\n"
)


@pytest.fixture(scope="module")
def kernels(gpu):
    return tuple(texpr.compile(s, device=gpu) for s in (STEP1, STEP2, SPLIT))


def reference(x, b):
    y = x * np.float32(2.0) + np.float32(1.0)
    return y * y - np.float32(b)


def test_a_chain_runs_as_one_fused_program_with_one_launch(gpu, kernels):
    k1, k2, _ = kernels

    @texpr.jit
    def f(x, b):
        return k2(y=k1(x=x), b=b)

    x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    dx = texpr.asarray(x, device=gpu)
    kernel = f.lower(dx, 0.5)
    # k1's output is a `let` of the composed program, fused into k2's kernel.
    assert len(kernel.kernels) == 1
    assert list(kernel.outputs) == ["z"] and list(kernel.inputs) == ["x", "b"]
    before = texpr.transfers(gpu)
    z = f(dx, 0.5)
    assert isinstance(z, texpr.DeviceArray)
    assert texpr.transfers(gpu)["launches"] == before["launches"] + 1
    np.testing.assert_allclose(z.numpy(), reference(x, 0.5), rtol=1e-6)
    # numpy in, numpy out, as a kernel does; the two calls agree exactly.
    zn = f(x, 0.5)
    assert isinstance(zn, np.ndarray) and np.array_equal(zn, z.numpy())
    # A scalar argument is an input: a new value needs no new program.
    compiles = texpr.stats()["compiles"] + texpr.stats()["cache_hits"]
    np.testing.assert_allclose(f(x, 3.0), reference(x, 3.0), rtol=1e-6)
    assert texpr.stats()["compiles"] + texpr.stats()["cache_hits"] == compiles


def test_returned_intermediates_several_outputs_and_captured_arrays(gpu, kernels):
    k1, k2, split = kernels
    b = np.float32([0.25])

    @texpr.jit
    def f(x):
        y = k1(x=x)
        parts = split(x=y)
        return {"y": y, "z": k2(y=parts["hi"], b=b), "lo": parts["lo"]}

    x = np.random.default_rng(1).standard_normal(N).astype(np.float32)
    out = f(x)
    assert set(out) == {"y", "z", "lo"}
    y = x * np.float32(2.0) + np.float32(1.0)
    np.testing.assert_array_equal(out["y"], y)
    np.testing.assert_array_equal(out["lo"], np.minimum(y, 0))
    hi = np.maximum(y, 0)
    np.testing.assert_allclose(out["z"], hi * hi - b[0], rtol=1e-6)
    # A jitted function called while another is traced joins its trace.
    inner = texpr.jit(lambda y: split(x=y)["lo"])
    outer = texpr.jit(lambda x: inner(k1(x=x)))
    assert len(outer.lower(x).kernels) == 1
    np.testing.assert_array_equal(outer(x), np.minimum(y, 0))
    # A tuple comes back as a tuple, in order.
    g = texpr.jit(lambda x: (k1(x=x), split(x=x)["hi"]))
    y2, hi2 = g(x)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(hi2, np.maximum(x, 0))


def test_one_program_per_argument_types_and_static_arguments(gpu, kernels):
    k1, k2, _ = kernels
    traces = []

    @texpr.jit(static=("twice",))
    def f(x, twice):
        traces.append(twice)
        y = k1(x=x)
        return k1(x=y) if twice else y

    x = np.ones(N, np.float32)
    assert np.array_equal(f(x, True), np.full(N, 7.0, np.float32))
    assert np.array_equal(f(x * 2, True), np.full(N, 11.0, np.float32))
    assert np.array_equal(f(x, False), np.full(N, 3.0, np.float32))
    # Traced once per (types, static values); device arrays are another type.
    assert traces == [True, False]
    f(texpr.asarray(x, device=gpu), False).numpy()
    assert traces == [True, False, False]


def test_what_a_traced_function_cannot_do_is_refused_with_a_reason(gpu, kernels):
    k1, k2, _ = kernels
    x = np.ones(N, np.float32)
    with pytest.raises(TypeError, match="returns its argument `x` unchanged"):
        texpr.jit(lambda x: x)(x)
    with pytest.raises(TypeError, match="returns float, not a kernel's output"):
        texpr.jit(lambda x: 1.5)(x)
    with pytest.raises(TypeError, match="has no value while texpr.jit traces"):
        texpr.jit(lambda x: k1(x=np.asarray(x)))(x)
    with pytest.raises(TypeError, match="unknown input `q`"):
        texpr.jit(lambda x: k1(q=x))(x)
    # A kernel of other sizes: the composer names the mismatch.
    small = texpr.compile(STEP1.replace(f"N = {N}", "N = 8"), device=gpu)
    with pytest.raises(TypeError, match=r"is f32\[8\], given f32\[4096\]"):
        texpr.jit(lambda x: small(x=k1(x=x)))(x)
    with pytest.raises(TypeError, match="neither an array nor hashable"):
        texpr.jit(lambda x, opts: k1(x=x))(x, [1])
    # A traced number has no value at trace time either.
    with pytest.raises(TypeError):
        texpr.jit(lambda x, n: k1(x=x) if n > 1 else x)(x, 2)
