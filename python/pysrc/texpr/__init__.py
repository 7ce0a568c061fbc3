"""texpr: compile TExpr programs to WGSL compute shaders and run them on a GPU
from numpy arrays.

    import numpy as np, texpr
    saxpy = texpr.compile(open("examples/saxpy.te").read(), defines={"N": 1024})
    out = saxpy(a=np.float32([2.0]), x=x, y=y)     # one output: one array

- ``compile(source, defines=None, target=None, schedule=None, device=None) -> Kernel``
- ``Kernel(**inputs)``: runs on the GPU (the GIL released meanwhile); ``.wgsl``,
  ``.schedule``, ``.kernels``, ``.inputs``, ``.outputs``, ``.bench()``
- ``asarray(x, dtype=None, device=None) -> DeviceArray``: an array on a device
  (``.shape``, ``.dtype``, ``.numpy()``); a kernel given device arrays returns
  device arrays without waiting; ``from_dlpack(x)``; ``transfers(device)``
- ``jit(fn)``: ``fn``'s kernel calls traced into one program, fused across
  the calls, compiled once per argument types (``texpr._jit``)
- ``eval(source, defines=None, **inputs)``: the reference interpreter, same outputs
- ``check(source, defines=None) -> list[Diagnostic]``
- ``tune(source, ...)``: the schedule search; the winner goes to the schedule cache
- ``devices()``, ``Device(choice)``: adapters
- ``texpr.block.run(air_source, grid=(2, 2), tile=..., inputs=...)``: block programs

Errors: ``CompileError`` (``str`` is texprc's text, ``.diagnostics`` the coded,
located list), ``DeviceError`` (a lost device is reopened by the next call),
``TypeError`` / ``ValueError`` for inputs of the wrong dtype, size or name.
See docs/python.md.
"""

import os as _os

# Mesa's Vulkan device-selection layer complains on stderr where
# XDG_RUNTIME_DIR is unset; texprc switches it off the same way (quiet.rs).
if not _os.environ.get("XDG_RUNTIME_DIR"):
    _os.environ.setdefault("NODEVICE_SELECT", "1")

from ._texpr import (
    BlockError,
    CompileError,
    Device,
    DeviceArray,
    DeviceError,
    Diagnostic,
    Kernel,
    asarray,
    check,
    compile,
    devices,
    eval,
    from_dlpack,
    stats,
    transfers,
    tune,
)
from . import block
from ._jit import Jit, jit

__all__ = [
    "BlockError",
    "CompileError",
    "Device",
    "DeviceArray",
    "DeviceError",
    "Diagnostic",
    "Jit",
    "Kernel",
    "asarray",
    "block",
    "check",
    "compile",
    "devices",
    "eval",
    "from_dlpack",
    "jit",
    "stats",
    "transfers",
    "tune",
]
