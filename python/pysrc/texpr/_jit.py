"""``texpr.jit``: calls of compiled kernels traced into one program.

    @texpr.jit
    def f(x):
        return k2(y=k1(x=x))

    z = f(x)          # one program: k1's output is a `let` of it, fused into k2

The first call with arguments of given dtypes and shapes runs ``f`` on
tracers: each kernel call inside it records a stage and returns tracers for
its outputs. The stages are composed into one program (``texpr_ir::compose``
in Rust): an output that a later call reads becomes a ``let``, so the
optimizer fuses across what were separate launches, and what ``f`` returns
are the program's outputs. The program is compiled once (through the disk
cache, as ``texpr.compile``) and kept for later calls with arguments of the
same types; every call runs it once. Given device arrays it returns device
arrays, given numpy arrays numpy arrays, as a kernel does.

Arguments that are arrays (numpy arrays, device arrays, anything speaking
DLPack) or numbers (``int``, ``float``: a kernel's scalar input) are traced,
as ``jax.jit`` traces them; other arguments (``bool``, ``None``, strings,
tuples), and those named in ``static``, are static: part of the key a
program is kept under, passed to ``f`` as they are. A kernel input
inside ``f`` that is not a tracer (an array or number ``f`` closes over) is
an input of the program, fed with that same object at every call. Python
control flow in ``f`` runs at trace time only, as under ``jax.jit``.
"""

import functools
import inspect

from . import _texpr


class Traced:
    """A value inside a traced function: one of its arguments, or an output
    of a kernel called on tracers. It can only be passed to kernels and
    returned."""

    __slots__ = ("_trace", "_source", "_what")

    def __init__(self, trace, source, what):
        self._trace = trace
        self._source = source
        self._what = what

    def __repr__(self):
        return f"<texpr.Traced {self._what}>"

    def __array__(self, *args, **kwargs):
        raise TypeError(
            f"{self._what} has no value while texpr.jit traces; "
            "only kernels can be applied to it inside the traced function"
        )


class _Trace:
    def __init__(self):
        # The program's inputs: (name, kernel, kernel input name), and where
        # each comes from at run time: ("arg", name) or ("const", object).
        self.inputs = []
        self.feeds = []
        self.by_arg = {}
        self.stages = []
        self.device = None

    def input_for(self, name, kernel, kernel_input, feed):
        key = feed if feed[0] == "arg" else ("const", id(feed[1]))
        if key in self.by_arg:
            return self.by_arg[key]
        taken = {n for n, _, _ in self.inputs}
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name}_{k}", k + 1
        self.inputs.append((unique, kernel, kernel_input))
        self.feeds.append(feed)
        self.by_arg[key] = len(self.inputs) - 1
        return self.by_arg[key]


def _record(kernel, inputs):
    """A kernel called on tracers (from ``Kernel.__call__``): a stage."""
    traces = {v._trace for v in inputs.values() if isinstance(v, Traced)}
    if len(traces) != 1:
        raise TypeError("a kernel call mixes tracers of two texpr.jit traces")
    trace = traces.pop()
    if trace.device is None:
        trace.device = kernel.device
    names = list(kernel.inputs)
    unknown = [n for n in inputs if n not in names]
    if unknown:
        raise TypeError(f"unknown input `{unknown[0]}`: the program's inputs are {', '.join(names)}")
    sources = []
    for name in names:
        if name not in inputs:
            raise TypeError(f"missing input `{name}`")
        v = inputs[name]
        if isinstance(v, Traced):
            src = v._source
            if src[0] == "arg":
                src = ("in", trace.input_for(src[1], kernel, name, src), 0)
        else:
            src = ("in", trace.input_for(name, kernel, name, ("const", v)), 0)
        sources.append(src)
    stage = len(trace.stages)
    trace.stages.append((kernel, sources))
    outs = [
        Traced(trace, ("out", stage, o), f"output `{n}` of call {stage + 1}")
        for o, n in enumerate(kernel.outputs)
    ]
    if len(outs) == 1:
        return outs[0]
    return dict(zip(kernel.outputs, outs))


def _is_array(v):
    return (
        isinstance(v, _texpr.DeviceArray)
        or hasattr(v, "__array_interface__")
        or hasattr(v, "__dlpack__")
    )


def _traced(v):
    return _is_array(v) or (isinstance(v, (int, float)) and not isinstance(v, bool))


def _key(v):
    if _is_array(v):
        return ("array", type(v).__name__, str(v.dtype), tuple(v.shape))
    if _traced(v):
        return ("number", type(v).__name__)
    try:
        hash(v)
    except TypeError:
        raise TypeError(
            f"texpr.jit: an argument of type {type(v).__name__} is neither an array "
            "nor hashable (static arguments key the compiled program)"
        ) from None
    return ("static", type(v).__name__, v)


class Jit:
    """A function whose kernel calls run as one program; see ``texpr.jit``."""

    def __init__(self, fn, schedule=None, static=()):
        self._fn = fn
        self._schedule = schedule
        self._static = frozenset(static)
        self._signature = inspect.signature(fn)
        self._programs = {}
        functools.update_wrapper(self, fn)

    def _arguments(self, args, kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.arguments

    def _program(self, arguments):
        key = tuple(
            (n, ("static", v) if n in self._static else _key(v)) for n, v in arguments.items()
        )
        entry = self._programs.get(key)
        if entry is None:
            entry = self._trace(arguments)
            self._programs[key] = entry
        return entry

    def _trace(self, arguments):
        traced = {n for n, v in arguments.items() if n not in self._static and _traced(v)}
        trace = _Trace()
        call = {
            n: Traced(trace, ("arg", n), f"argument `{n}`") if n in traced else v
            for n, v in arguments.items()
        }
        returned = self._fn(**call)
        structure, leaves = _flatten(returned)
        if not leaves:
            raise TypeError("texpr.jit: the function returns no kernel output")
        results, taken = [], set()
        for t in leaves:
            if not isinstance(t, Traced) or t._trace is not trace:
                raise TypeError(
                    f"texpr.jit: the function returns {type(t).__name__}, not a kernel's output"
                )
            if t._source[0] != "out":
                raise TypeError(f"texpr.jit: the function returns its {t._what} unchanged")
            _, stage, output = t._source
            base = list(trace.stages[stage][0].outputs)[output]
            name, k = base, 2
            while name in taken or any(name == n for n, _, _ in trace.inputs):
                name, k = f"{base}_{k}", k + 1
            taken.add(name)
            results.append((name, stage, output))
        source = _texpr._compose(trace.inputs, trace.stages, results)
        kernel = _texpr.compile(source, schedule=self._schedule, device=trace.device)
        names = [n for n, _, _ in results]
        inputs = [(n, feed) for (n, _, _), feed in zip(trace.inputs, trace.feeds)]
        return kernel, inputs, names, structure

    def lower(self, *args, **kwargs):
        """The compiled kernel the arguments' types select (traced and
        compiled by the first call with them)."""
        return self._program(self._arguments(args, kwargs))[0]

    def __call__(self, *args, **kwargs):
        arguments = self._arguments(args, kwargs)
        if any(isinstance(v, Traced) for v in arguments.values()):
            # Called while another function is traced: its calls join that trace.
            return self._fn(**arguments)
        kernel, inputs, names, structure = self._program(arguments)
        feed = {n: arguments[f[1]] if f[0] == "arg" else f[1] for n, f in inputs}
        outs = kernel(**feed)
        if len(names) == 1:
            outs = {names[0]: outs}
        return _unflatten(structure, iter(outs[n] for n in names))


def jit(fn=None, *, schedule=None, static=()):
    """``fn``'s kernel calls traced into one program (see the module's doc).
    ``schedule`` is ``compile``'s: ``None`` (the heuristic) or ``"default"``;
    ``static`` names arguments that key the program instead of being traced
    (``jax.jit``'s ``static_argnames``)."""
    if fn is None:
        return functools.partial(jit, schedule=schedule, static=static)
    return Jit(fn, schedule, static)


def _flatten(v):
    if isinstance(v, (tuple, list)):
        parts = [_flatten(x) for x in v]
        return (type(v), [p[0] for p in parts]), [leaf for p in parts for leaf in p[1]]
    if isinstance(v, dict):
        parts = [(k, _flatten(x)) for k, x in v.items()]
        return (dict, [(k, p[0]) for k, p in parts]), [leaf for _, p in parts for leaf in p[1]]
    return None, [v]


def _unflatten(structure, leaves):
    if structure is None:
        return next(leaves)
    kind, parts = structure
    if kind is dict:
        return {k: _unflatten(s, leaves) for k, s in parts}
    return kind(_unflatten(s, leaves) for s in parts)
