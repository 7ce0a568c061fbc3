import atexit
import os
import pathlib
import shutil
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# The compile cache of the tests' process (and of the processes they start)
# is their own, never the user's (~/.cache/texpr/modules).
if "TEXPR_CACHE_DIR" not in os.environ:
    os.environ["TEXPR_CACHE_DIR"] = tempfile.mkdtemp(prefix="texpr-test-cache-")
    atexit.register(shutil.rmtree, os.environ["TEXPR_CACHE_DIR"], True)


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def gpu():
    """The default device; without an adapter the GPU tests fail under
    TEXPR_REQUIRE_GPU=1 (CI) and skip loudly otherwise, as the Rust tests do."""
    import texpr

    try:
        dev = texpr.Device()
        dev.info
        return dev
    except texpr.DeviceError as e:
        if os.environ.get("TEXPR_REQUIRE_GPU") == "1":
            pytest.fail(f"TEXPR_REQUIRE_GPU=1 and no GPU adapter: {e}")
        pytest.skip(f"NO GPU ADAPTER: GPU tests skipped ({e})")
