#!/usr/bin/env bash
# The Python package's tests: builds the extension into a virtual environment
# with `maturin develop` (the dev profile, sharing the workspace's target/, so
# only the binding's own crate compiles after `cargo test --workspace`) and
# runs pytest on python/tests. The venv is target/pyenv (TEXPR_PYENV to move
# it); what it lacks (maturin, numpy, pytest) is installed from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${TEXPR_PYENV:-target/pyenv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
venv=$(cd "$venv" && pwd)
if ! "$venv/bin/python" -c "import numpy, pytest" 2>/dev/null || [ ! -x "$venv/bin/maturin" ]; then
    "$venv/bin/pip" install -q "maturin>=1.9,<2" "numpy>=1.21" "pytest>=7"
fi
(cd python && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop -q)
exec "$venv/bin/python" -m pytest -q python/tests "$@"
