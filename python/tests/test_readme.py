"""The README's Python example runs as written (from the repository root)."""

import os
import re

from conftest import REPO


def test_readme_python_example_runs(gpu, capsys, monkeypatch):
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has no python example"
    monkeypatch.chdir(REPO)
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert float(out[0]) < 1e-6, out[0]  # softmax against numpy
    assert "us per call" in out[1]
