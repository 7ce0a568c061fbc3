"""Block programs (``.air`` text: matrices split into tiles over a grid of
ranks), run with every rank a thread of this process, numpy in and out.

    C = texpr.block.run(src, grid=(2, 2), tile=2, inputs={"a": A, "b": B, "bias": bias})

``run(source, grid=(2, 2), tile=None, inputs=None, defines=None, device="cpu")``:
``tile`` sets the program's ``param T``, ``defines`` other params; ``inputs``
maps each input's name (without ``%``) to a 2-D float32 array of its shape;
``device`` is ``"cpu"`` (the interpreter runs the block bodies) or ``"gpu"``.
Returns the result as a 2-D float32 array. Errors raise ``texpr.BlockError``
(``str`` is the text ``texprc block`` prints, ``.diagnostics`` the list).
"""

from ._texpr import block_run as run

__all__ = ["run"]
