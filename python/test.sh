#!/usr/bin/env bash
# The Python package's tests: builds the extension `texpr._texpr` with cargo,
# installs it with the package's Python files into a virtual environment,
# and runs pytest on python/tests (arguments go to pytest: `-k NAME`).
#
# One build: the extension is built by `cargo build --workspace --lib
# --examples` in the dev profile, which resolves every crate's features as
# `cargo test --workspace` does (the whole workspace, dev-dependencies
# included), so after the workspace's tests only the binding compiles (pyo3
# and texpr-python). `maturin develop` builds the binding's crate alone, whose
# smaller feature set gives most dependencies new fingerprints: a second full
# build. The wheel is maturin's (`maturin build --release`, see the README).
#
# The venv is target/pyenv (TEXPR_PYENV to move it); what it lacks (numpy,
# pytest) is installed from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${TEXPR_PYENV:-target/pyenv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
venv=$(cd "$venv" && pwd)
py="$venv/bin/python"
if ! "$py" -c "import numpy, pytest" 2>/dev/null; then
    "$venv/bin/pip" install -q "numpy>=1.21" "pytest>=7"
fi

# pyo3's build settings as maturin sets them: an extension module (not linked
# to libpython) for the venv's interpreter.
built=$(PYO3_PYTHON="$py" PYO3_BUILD_EXTENSION_MODULE=1 \
    cargo build --workspace --lib --examples --message-format=json-render-diagnostics |
    "$py" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "_texpr":
        print(next(f for f in m["filenames"] if f.endswith(".so")))
')
if [ -z "$built" ]; then
    echo "python/test.sh: cargo built no texpr._texpr extension" >&2
    exit 1
fi

# The package as a wheel lays it out: texpr/ (python/pysrc) with the extension
# in it, replacing whatever an earlier install (this script, maturin, pip) left.
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf "$site/texpr" "$site"/texpr-*.dist-info "$site"/texpr.pth "$site"/texpr-*.pth
"$py" -c '
import shutil, sys
src, dst, so = sys.argv[1:]
shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
shutil.copy(so, dst + "/_texpr.abi3.so")
' python/pysrc/texpr "$site/texpr" "$built"

exec "$py" -m pytest -q python/tests "$@"
