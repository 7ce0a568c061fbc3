"""Every example in examples/ on the GPU, compared with its numpy reference
(tests/references.py) and with the interpreter (texpr.eval), under the
heuristic's schedule and the default one."""

import numpy as np
import pytest

import texpr
from references import REFERENCES

from conftest import REPO

EXAMPLES = sorted(p.stem for p in (REPO / "examples").glob("*.te"))

# Known compiler bugs, each a strict xfail: it must fail, so the test goes red
# (and the entry must go) the moment the bug is fixed.
KNOWN_BUGS: dict = {
    # (example, "heuristic" | "default"): "the bug, where it is",
}


def test_every_example_has_a_reference():
    missing = [e for e in EXAMPLES if e not in REFERENCES]
    stale = [r for r in REFERENCES if r not in EXAMPLES]
    assert not missing, f"examples without a numpy reference in tests/references.py: {missing}"
    assert not stale, f"references for examples that no longer exist: {stale}"


def close(name, got, want, tol):
    rtol, atol = tol
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{name}: shape {got.shape}, expected {want.shape}"
    err = np.abs(got - want)
    allowed = atol + rtol * np.abs(want)
    bad = np.flatnonzero(err > allowed)
    assert bad.size == 0, (
        f"{name}: {bad.size} of {got.size} elements off, first at {bad[0]}: "
        f"{got.ravel()[bad[0]]} vs {want.ravel()[bad[0]]} (allowed {np.broadcast_to(allowed, err.shape).ravel()[bad[0]]:.3g})"
    )


def as_dict(kernel, result):
    return result if isinstance(result, dict) else {next(iter(kernel.outputs)): result}


@pytest.mark.parametrize("schedule", [None, "default"], ids=["heuristic", "default"])
@pytest.mark.parametrize("example", EXAMPLES)
def test_example_matches_numpy(gpu, example, schedule, request):
    bug = KNOWN_BUGS.get((example, schedule or "heuristic"))
    if bug and "llvmpipe" in gpu.info["name"]:
        request.applymarker(pytest.mark.xfail(reason=bug, strict=True))
    defines, make, expected, tolerance = REFERENCES[example]
    path = REPO / "examples" / f"{example}.te"
    rng = np.random.default_rng(sum(map(ord, example)))  # deterministic per example
    inputs = make(rng)
    kernel = texpr.compile(path, defines=defines, schedule=schedule, device=gpu)
    got = as_dict(kernel, kernel(**inputs))
    interp = as_dict(kernel, texpr.eval(path, defines=defines, **inputs))
    want = expected(inputs)
    tols = tolerance(inputs, want)
    assert set(got) == set(want) == set(interp)
    for name in want:
        # The output's element type as the program declares it.
        assert got[name].dtype == np.dtype(kernel.outputs[name][0]), (name, got[name].dtype)
        close(f"{example}.{name} (GPU vs numpy)", got[name], want[name], tols[name])
        close(f"{example}.{name} (interpreter vs numpy)", interp[name], want[name], tols[name])
        close(f"{example}.{name} (GPU vs interpreter)", got[name], interp[name], tols[name])
