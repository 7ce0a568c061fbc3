"""The compile cache on disk (a second process does not compile) and the
bound on the pipelines a process keeps."""

import json
import os
import subprocess
import sys

import numpy as np

import texpr
from conftest import REPO

MATMUL = (REPO / "examples" / "matmul.te").read_text()
JACOBI = (REPO / "examples" / "jacobi2d.te").read_text()
SAXPY = (REPO / "examples" / "saxpy.te").read_text()

# A process that compiles matmul and runs it: its compile counts and a checksum.
CHILD = """
import json, sys
import numpy as np, texpr
src = open(sys.argv[1]).read()
k = texpr.compile(src, defines={"M": 64, "N": 48, "K": 32})
r = np.random.default_rng(0)
c = k(a=r.standard_normal(64 * 32).astype(np.float32), b=r.standard_normal(32 * 48).astype(np.float32))
s = texpr.stats()
print(json.dumps({"compiles": s["compiles"], "cache_hits": s["cache_hits"], "c": c.tolist()}))
"""


def child(env):
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(REPO / "examples" / "matmul.te")],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.splitlines()[-1])


def test_a_second_process_does_not_compile(gpu, tmp_path):
    env = {"TEXPR_CACHE_DIR": str(tmp_path / "modules")}
    first = child(env)
    assert (first["compiles"], first["cache_hits"]) == (1, 0)
    assert len(list((tmp_path / "modules").glob("*.json"))) == 1
    second = child(env)
    assert (second["compiles"], second["cache_hits"]) == (0, 1)
    assert second["c"] == first["c"]
    # Off: compiles, and writes nothing.
    off = child({**env, "TEXPR_MODULE_CACHE": "0", "TEXPR_CACHE_DIR": str(tmp_path / "off")})
    assert (off["compiles"], off["cache_hits"]) == (1, 0)
    assert not (tmp_path / "off").exists()


def compiles():
    s = texpr.stats()
    return s["compiles"], s["cache_hits"]


def test_a_cached_module_is_the_compiled_one(gpu, tmp_path, monkeypatch):
    monkeypatch.setenv("TEXPR_CACHE_DIR", str(tmp_path))
    d = {"N": 16, "T": 5}
    c0, h0 = compiles()
    made = texpr.compile(JACOBI, defines=d, device=gpu)
    assert compiles() == (c0 + 1, h0)
    read = texpr.compile(JACOBI, defines=d, device=gpu)
    assert compiles() == (c0 + 1, h0 + 1)
    assert (read.wgsl, read.schedule, read.kernels) == (made.wgsl, made.schedule, made.kernels)
    a0 = np.random.default_rng(1).standard_normal(16 * 16).astype(np.float32)
    np.testing.assert_array_equal(read(A0=a0), made(A0=a0))
    np.testing.assert_allclose(read(A0=a0), texpr.eval(JACOBI, defines=d, A0=a0), rtol=1e-5, atol=1e-6)
    # Another define, schedule or target is another module.
    texpr.compile(JACOBI, defines={"N": 16, "T": 6}, device=gpu)
    texpr.compile(JACOBI, defines=d, schedule="default", device=gpu)
    texpr.compile(JACOBI, defines=d, target="nvidia", device=gpu)
    assert compiles() == (c0 + 4, h0 + 1)


def test_a_damaged_cache_file_is_a_miss(gpu, tmp_path, monkeypatch):
    monkeypatch.setenv("TEXPR_CACHE_DIR", str(tmp_path))
    k = texpr.compile(SAXPY, defines={"N": 64}, device=gpu)
    [f] = tmp_path.glob("*.json")
    f.write_text(f.read_text()[:100])
    c0, h0 = compiles()
    again = texpr.compile(SAXPY, defines={"N": 64}, device=gpu)
    assert compiles() == (c0 + 1, h0)
    assert again.wgsl == k.wgsl
    json.loads(f.read_text())  # written whole again


def test_pipelines_stay_bounded_over_a_thousand_sizes(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXPR_MODULE_CACHE", "0")
    dev = texpr.Device()
    bound = dev.pipeline_limit
    seen = 0
    for n in range(1, 1001):
        k = texpr.compile(SAXPY, defines={"N": n}, schedule="default", device=dev)
        x = np.full(n, 2, np.float32)
        out = k(a=np.float32([3]), x=x, y=x)
        assert out[-1] == 8.0
        seen = max(seen, dev.pipelines)
    assert seen == bound
    assert dev.pipelines == bound
