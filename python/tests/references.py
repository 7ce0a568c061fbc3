"""numpy references for every example in examples/: the small sizes the tests
run each at, its inputs, the expected outputs (computed in float64 from the
float32 inputs) and the tolerance the computation justifies.

Each reference is ``(defines, make_inputs(rng), expected(inputs) -> dict,
tolerance(inputs, expected) -> dict of (rtol, atol))``. A new example needs
an entry here: tests/test_examples.py fails for an example without one.
"""

import numpy as np

EPS32 = float(np.finfo(np.float32).eps) / 2  # unit roundoff of float32


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32).ravel()


def f16(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16).ravel()


EPS16 = float(np.finfo(np.float16).eps)  # one binary16 ulp at 1 (2^-10)


def _mlp(i, t, d, h):
    x = i["x"].reshape(t, d).astype(np.float64)
    hidden = np.maximum(x @ i["w1"].reshape(d, h) + i["b1"], 0).astype(np.float16)
    y = hidden.astype(np.float64) @ i["w2"].reshape(h, d) + i["b2"]
    return y.astype(np.float16).astype(np.float64).ravel()


def dot_bound(k, absprod):
    """A k-term float32 sum's error, any order: k * u * sum |terms| (plus slack)."""
    return 2.0 * k * EPS32 * absprod


def _loop_lu(a):
    """In-place LU without pivoting, as lu.te iterates it (float64)."""
    s = a.copy()
    n = s.shape[0]
    for k in range(n):
        s[k + 1:, k] /= s[k, k]
        s[k + 1:, k + 1:] -= np.outer(s[k + 1:, k], s[k, k + 1:])
    return s


def _spd(m, n):
    m = m.reshape(n, n).astype(np.float64)
    return m @ m.T / n + np.eye(n)


def _jacobi(a, n, t):
    a = a.reshape(n, n).astype(np.float64)
    for _ in range(2 * t):
        b = a.copy()
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a = b
    return a.ravel()


def _heat(a, n, t):
    a = a.reshape(n, n, n).astype(np.float64)
    for _ in range(2 * t):
        b = a.copy()
        c = a[1:-1, 1:-1, 1:-1]
        di = a[2:, 1:-1, 1:-1] - 2 * c + a[:-2, 1:-1, 1:-1]
        dj = a[1:-1, 2:, 1:-1] - 2 * c + a[1:-1, :-2, 1:-1]
        dk = a[1:-1, 1:-1, 2:] - 2 * c + a[1:-1, 1:-1, :-2]
        b[1:-1, 1:-1, 1:-1] = 0.125 * (di + dj + dk) + c
        a = b
    return a.ravel()


def _adi(u0, n, t):
    """PolyBench's adi in float64, its sweeps vectorised over the rows they
    solve independently (adi.te runs each row's recurrence in one invocation)."""
    u = u0.reshape(n, n).astype(np.float64)
    m = n * n / t
    a, b, c, d, e, f = -m, 1 + 2 * m, -m, -m / 2, 1 + m, -m / 2
    v, p, q = np.ones((n, n)), np.zeros((n, n)), np.ones((n, n))
    for _ in range(t):
        for j in range(1, n - 1):
            den = a * p[1:-1, j - 1] + b
            p[1:-1, j] = -c / den
            q[1:-1, j] = (-d * u[j, :-2] + (1 + 2 * d) * u[j, 1:-1] - f * u[j, 2:] - a * q[1:-1, j - 1]) / den
        for j in range(n - 2, 0, -1):
            v[j, 1:-1] = p[1:-1, j] * v[j + 1, 1:-1] + q[1:-1, j]
        u[1:-1, 0] = 1
        u[1:-1, n - 1] = 1
        for j in range(1, n - 1):
            den = d * p[1:-1, j - 1] + e
            p[1:-1, j] = -f / den
            q[1:-1, j] = (-a * v[:-2, j] + (1 + 2 * a) * v[1:-1, j] - c * v[2:, j] - d * q[1:-1, j - 1]) / den
        for j in range(n - 2, 0, -1):
            u[1:-1, j] = p[1:-1, j] * u[1:-1, j + 1] + q[1:-1, j]
    return u.ravel()


def _stencil(u, h, w):
    u = u.reshape(h, w).astype(np.float64)
    p = np.pad(u, 1)
    return (0.25 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])).ravel()


def _floyd(w, n):
    d = np.abs(w.reshape(n, n)) + np.float32(1.0)
    np.fill_diagonal(d, 0.0)
    d = d.astype(np.float32)
    for k in range(n):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])  # float32, as the GPU adds
    return d.ravel()


def _softmax(x, r, c):
    x = x.reshape(r, c).astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).ravel()


def _layernorm(x, g, b, r, c):
    x = x.reshape(r, c).astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return ((x - mean) / np.sqrt(var + 1e-5) * g + b).ravel()


def _attention(q, k, v, s, t, d):
    q, k, v = (a.astype(np.float64) for a in (q.reshape(s, d), k.reshape(t, d), v.reshape(t, d)))
    sc = q @ k.T / np.sqrt(d)
    p = np.exp(sc - sc.max(axis=1, keepdims=True))
    return ((p @ v) / p.sum(axis=1, keepdims=True)).ravel()


def _conv1d(x, w, n, k):
    p = k // 2
    xp = np.pad(x.astype(np.float64), (p, k - 1 - p))
    return np.array([np.dot(w, xp[i:i + k]) for i in range(n)])


def _rel(rtol, atol):
    return lambda ins, out: {name: (rtol, atol) for name in out}


# Elementwise programs round each operation once (rtol a few ulps); a k-term
# sum is held to dot_bound; the iterated stencils average (errors do not
# grow); the factorizations are of well-conditioned matrices (diagonally
# dominant, or M M^T / N + I), so 1e-4 relative covers their N-step float32
# rounding with room to spare.
REFERENCES = {
    "saxpy": (
        {"N": 1024},
        lambda r: {"a": np.float32([1.5]), "x": f32(r, 1024), "y": f32(r, 1024)},
        lambda i: {"out": np.float64(i["a"][0]) * i["x"] + i["y"]},
        _rel(1e-6, 1e-6),
    ),
    "chain": (
        {"N": 1024},
        lambda r: {"x": f32(r, 1024)},
        lambda i: {"y": ((i["x"].astype(np.float64) * 2 + 1) * 0.5 - 0.25) * i["x"]},
        _rel(1e-5, 1e-6),
    ),
    "sum": (
        {"N": 4096},
        lambda r: {"x": f32(r, 4096)},
        lambda i: {"total": np.array([i["x"].astype(np.float64).sum()])},
        lambda i, o: {"total": (0, dot_bound(4096, np.abs(i["x"]).sum()))},
    ),
    "dot": (
        {"N": 4096},
        lambda r: {"x": f32(r, 4096), "y": f32(r, 4096)},
        lambda i: {"out": np.array([np.dot(i["x"].astype(np.float64), i["y"])])},
        lambda i, o: {"out": (0, dot_bound(4096, np.abs(i["x"] * i["y"]).sum()))},
    ),
    "max": (
        {"N": 4096},
        lambda r: {"x": f32(r, 4096)},
        lambda i: {"m": np.array([i["x"].max()])},
        _rel(0, 0),
    ),
    "conv1d": (
        {"N": 1024, "K": 7},
        lambda r: {"x": f32(r, 1024), "w": f32(r, 7)},
        lambda i: {"y": _conv1d(i["x"], i["w"], 1024, 7)},
        lambda i, o: {"y": (0, dot_bound(7, _conv1d(np.abs(i["x"]), np.abs(i["w"]), 1024, 7)))},
    ),
    "matmul": (
        {"M": 32, "N": 24, "K": 40},
        lambda r: {"a": f32(r, 32 * 40), "b": f32(r, 40 * 24)},
        lambda i: {"c": (i["a"].reshape(32, 40).astype(np.float64) @ i["b"].reshape(40, 24)).ravel()},
        lambda i, o: {"c": (0, dot_bound(40, (np.abs(i["a"].reshape(32, 40)) @ np.abs(i["b"].reshape(40, 24))).ravel()))},
    ),
    "matmul_f16": (
        {"M": 32, "N": 24, "K": 40},
        lambda r: {"a": f16(r, 32 * 40), "b": f16(r, 40 * 24)},
        lambda i: {"c": (i["a"].reshape(32, 40).astype(np.float64) @ i["b"].reshape(40, 24)).astype(np.float16).astype(np.float64).ravel()},
        lambda i, o: {"c": (EPS16, dot_bound(40, (np.abs(i["a"].reshape(32, 40).astype(np.float64)) @ np.abs(i["b"].reshape(40, 24))).ravel()) + 2 ** -14)},
    ),
    # The hidden layer is rounded to f16 (as the program does); a hidden
    # value on the other side of a rounding boundary moves an output by one
    # of its ulps times a weight, which the absolute term covers.
    "mlp_f16": (
        {"T": 4, "D": 16, "H": 32},
        lambda r: {"x": f16(r, 4 * 16), "w1": f16(r, 16 * 32), "b1": f16(r, 32), "w2": f16(r, 32 * 16), "b2": f16(r, 16)},
        lambda i: {"y": _mlp(i, 4, 16, 32)},
        lambda i, o: {"y": (2 * EPS16, 8 * EPS16)},
    ),
    "batched_matmul": (
        {"BATCH": 2, "M": 16, "N": 8, "K": 24},
        lambda r: {"a": f32(r, 2 * 16 * 24), "b": f32(r, 2 * 24 * 8)},
        lambda i: {"c": (i["a"].reshape(2, 16, 24).astype(np.float64) @ i["b"].reshape(2, 24, 8)).ravel()},
        lambda i, o: {"c": (0, dot_bound(24, (np.abs(i["a"].reshape(2, 16, 24)) @ np.abs(i["b"].reshape(2, 24, 8))).ravel()))},
    ),
    "matvec": (
        {"M": 48, "N": 64},
        lambda r: {"a": f32(r, 48 * 64), "x": f32(r, 64)},
        lambda i: {"y": i["a"].reshape(48, 64).astype(np.float64) @ i["x"]},
        lambda i, o: {"y": (0, dot_bound(64, np.abs(i["a"].reshape(48, 64)) @ np.abs(i["x"])))},
    ),
    "softmax": (
        {"R": 8, "C": 64},
        lambda r: {"x": f32(r, 8 * 64)},
        lambda i: {"y": _softmax(i["x"], 8, 64)},
        _rel(2e-5, 1e-7),
    ),
    "layernorm": (
        {"R": 8, "C": 64},
        lambda r: {"x": f32(r, 8 * 64), "gamma": f32(r, 64), "beta": f32(r, 64)},
        lambda i: {"y": _layernorm(i["x"], i["gamma"], i["beta"], 8, 64)},
        _rel(1e-4, 1e-5),
    ),
    "attention": (
        {"S": 16, "T": 16, "D": 8},
        lambda r: {"q": f32(r, 16 * 8), "k": f32(r, 16 * 8), "v": f32(r, 16 * 8)},
        lambda i: {"out": _attention(i["q"], i["k"], i["v"], 16, 16, 8)},
        _rel(1e-4, 1e-5),
    ),
    "transpose": (
        {"M": 16, "N": 8},
        lambda r: {"x": f32(r, 16 * 8)},
        lambda i: {"out": i["x"].reshape(16, 8).T.ravel()},
        _rel(0, 0),
    ),
    "stencil2d": (
        {"H": 16, "W": 12},
        lambda r: {"u": f32(r, 16 * 12)},
        lambda i: {"out": _stencil(i["u"], 16, 12)},
        _rel(1e-6, 1e-6),
    ),
    "jacobi2d": (
        {"N": 16, "T": 4},
        lambda r: {"A0": f32(r, 16 * 16)},
        lambda i: {"A": _jacobi(i["A0"], 16, 4)},
        _rel(1e-5, 1e-6),
    ),
    # adi's sweeps multiply by m = N^2 / T and divide it out again: float32
    # loses about log2(m) bits over them.
    "adi": (
        {"N": 12, "T": 3},
        lambda r: {"U0": f32(r, 12 * 12)},
        lambda i: {"U": _adi(i["U0"], 12, 3)},
        _rel(1e-4, 1e-5),
    ),
    "heat3d": (
        {"N": 6, "T": 2},
        lambda r: {"A0": f32(r, 6 * 6 * 6)},
        lambda i: {"A": _heat(i["A0"], 6, 2)},
        _rel(1e-5, 1e-6),
    ),
    "floyd_warshall": (
        {"N": 8},
        lambda r: {"W": f32(r, 8 * 8)},
        lambda i: {"D": _floyd(i["W"], 8)},
        _rel(0, 0),
    ),
    "cholesky": (
        {"N": 8},
        lambda r: {"M": f32(r, 8 * 8)},
        lambda i: {"L": np.linalg.cholesky(_spd(i["M"], 8)).ravel()},
        _rel(1e-4, 1e-5),
    ),
    "cholesky_right": (
        {"N": 8},
        lambda r: {"M": f32(r, 8 * 8)},
        lambda i: {"L": np.linalg.cholesky(_spd(i["M"], 8)).ravel()},
        _rel(1e-4, 1e-5),
    ),
    "lu": (
        {"N": 8},
        lambda r: {"A0": f32(r, 8 * 8)},
        lambda i: {"LU": _loop_lu(i["A0"].reshape(8, 8).astype(np.float64) + 8 * np.eye(8)).ravel()},
        _rel(1e-4, 1e-5),
    ),
    "ludcmp": (
        {"N": 8},
        lambda r: {"A0": f32(r, 8 * 8), "b": f32(r, 8)},
        lambda i: {"x": np.linalg.solve(i["A0"].reshape(8, 8).astype(np.float64) + 8 * np.eye(8), i["b"])},
        _rel(1e-4, 1e-5),
    ),
    "cumsum": (
        {"T": 6, "N": 10},
        lambda r: {"X": f32(r, 6 * 10)},
        lambda i: {"S": np.cumsum(i["X"].reshape(6, 10).astype(np.float64), axis=0).ravel()},
        _rel(1e-5, 1e-6),
    ),
    "trisolv": (
        {"N": 8},
        lambda r: {"L0": f32(r, 8 * 8), "b": f32(r, 8)},
        lambda i: {"x": np.linalg.solve(np.tril(i["L0"].reshape(8, 8).astype(np.float64) / 8, -1) + np.eye(8), i["b"])},
        _rel(1e-4, 1e-5),
    ),
}
