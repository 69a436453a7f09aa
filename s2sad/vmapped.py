"""Vmapped: the callable ``s2sad.vmap`` returns.

``vmap(f, in_axes, out_axes)(*args)`` runs f, written for one example, on a
batch: the arguments whose ``in_axes`` is an int hold the examples along that
axis; those whose ``in_axes`` is None are the same for every example.  The code
is made by the batching pass (transforms/batching) once per kind of call and
set of argument shapes (its shape helpers then fold away), and ``source()``
shows it.  Inside another transform (``grad(lambda p: vmap(f)(p, X).sum())``)
the code made for any shapes is read and transformed again, and vmap of a
derivative batches the derivative's code: every composition works.
"""

import functools
from typing import Any, Optional

import numpy as np

from . import cache, compiled, failures, registry
from .calls import backend_of, call_spec, describe, positional_params
from .containers import flatten
from .errors import ArgumentError, TransformError
from .ir.spec import Arg
from .pipeline import get_artifact, name_of
from .rules.taylor.batch import item_shapes


def _check_axis(a, what, nested=False):
    """An in_axes or out_axes entry: an int, None, or (nested: for a tuple argument or
    result) a tuple of them, item by item."""
    if a is None or (isinstance(a, int) and not isinstance(a, bool)):
        return a
    if nested and isinstance(a, (tuple, list)):
        return tuple(_check_axis(x, what, True) for x in a)
    raise ArgumentError(f"vmap: {what} must be an int or None, not {a!r}",
                        hint="Give one per argument as a tuple, e.g. in_axes=(None, 0, 0); "
                             "for a tuple argument, a tuple of them item by item.")


def _leaves(x):
    if isinstance(x, (tuple, list)):
        for e in x:
            yield from _leaves(e)
    elif isinstance(x, dict):
        for e in x.values():
            yield from _leaves(e)
    elif x is not None:
        yield x


def _with_axes(a, ax, what):
    """(leaf, its batch axis) of argument a under its in_axes entry ax."""
    if ax is None:
        return
    if isinstance(ax, tuple):
        if not isinstance(a, (tuple, list)) or len(a) != len(ax):
            raise ArgumentError(f"vmap: in_axes gives {len(ax)} entries for {what}, which "
                                f"is not a tuple or list of {len(ax)} items")
        for x, sub in zip(a, ax):
            yield from _with_axes(x, sub, what)
        return
    for leaf in _leaves(a):
        yield leaf, ax


class Vmapped(registry.Derived):
    """f run on a batch of examples: call it like f; see ``source()``."""

    def __init__(self, fn, in_axes=0, out_axes=0):
        if not callable(fn):
            raise ArgumentError(f"s2sad.vmap needs a function, got {type(fn).__name__}")
        self.fn = registry.source_of(fn) or fn
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        if isinstance(in_axes, tuple):
            self.in_axes = tuple(_check_axis(a, "each of in_axes", True) for a in in_axes)
        elif isinstance(in_axes, dict):
            raise ArgumentError("vmap: in_axes as a dict is not supported; give one int or "
                                "None per positional argument (a tuple)")
        else:
            self.in_axes = _check_axis(in_axes, "in_axes")
        self.out_axes = _check_axis(out_axes, "out_axes", True)
        functools.update_wrapper(self, self.fn, updated=())
        self.__name__ = f"vmap_{name_of(self.fn)}"
        self._params = None
        self._last = None

    def __repr__(self):
        return f"<s2sad.vmap({name_of(self.fn)}, in_axes={self.in_axes!r}, " \
               f"out_axes={self.out_axes!r})>"

    def params(self):
        if self._params is None:
            self._params = positional_params(self.fn)
        return self._params

    def _axes(self, n: int):
        """One in_axes entry per positional parameter."""
        if isinstance(self.in_axes, tuple):
            if len(self.in_axes) != n:
                raise ArgumentError(f"vmap: in_axes has {len(self.in_axes)} entries, but "
                                    f"{describe(self.fn)} takes {n} positional arguments")
            return self.in_axes
        return (self.in_axes,) * n

    def artifact(self, spec: Optional[str] = None, shapes=None) -> cache.Artifact:
        n = len(self.params())
        key = (self._axes(n), self.out_axes, shapes)
        return get_artifact(self.fn, "vmap", key, False, spec)

    def generated_function(self, xp=np, spec=None):
        return self.artifact(spec).function(xp)

    @property
    @failures.public
    def source(self) -> str:
        spec, shapes = self._last or (None, None)
        return self.artifact(spec, shapes).module.source

    def compiled_source(self) -> str:
        """source, headed by how s2sad.jit runs it: compiled (and the text Numba compiles)
        or as NumPy code (and why)."""
        spec, shapes = self._last or (None, None)
        return compiled.describe(self.artifact(spec, shapes).module)

    def __call__(self, *args, **kwargs):
        try:
            return self._call(*args, **kwargs)
        except Exception as e:
            raise failures.trim(e)

    def _call(self, *args, **kwargs):
        params = self.params()
        n = len(params)
        if len(args) != n or kwargs:
            raise ArgumentError(f"vmap({describe(self.fn)}) takes its {n} arguments by "
                                f"position; it was given {len(args)} positional and "
                                f"{len(kwargs)} keyword arguments")
        axes = self._axes(n)
        sizes = set()
        for i, (a, ax) in enumerate(zip(args, axes)):
            for leaf, lax in _with_axes(a, ax, f"argument {i} ({params[i]})"):
                s = np.shape(leaf)
                if not -len(s) <= lax < len(s):
                    raise ArgumentError(f"vmap: in_axes={lax} for argument {i} "
                                        f"({params[i]}), which has shape {s}")
                sizes.add(s[lax])
        if not sizes:
            raise ArgumentError("vmap: no argument is batched (in_axes are all None)")
        if len(sizes) > 1:
            raise ArgumentError(f"vmap: the batched arguments have different batch sizes "
                                f"{sorted(sizes)}")
        spec = call_spec(params, args, kwargs)
        xp = backend_of(args)
        if xp is not np:
            spec = spec.replace(Arg.FLOAT, Arg.ARRAY)
        shapes = tuple(a.shape if type(a) is np.ndarray else item_shapes(a)
                       if isinstance(a, (tuple, list)) else None for a in args)
        self._last = (spec, shapes)
        art = self.artifact(spec, shapes)
        f = compiled.chosen(art.module, art.function(xp), xp)   # (under jit: Numba's)
        try:
            return f(*map(flatten, args))
        except Exception as e:      # at the user's line: their error, or a refusal there
            err = failures.at_run_time(e)
            if err is e:
                raise
            raise err from e


def _tree_map(f, x):
    if isinstance(x, (tuple, list)):
        return type(x)(_tree_map(f, e) for e in x)
    if isinstance(x, dict):
        return {k: _tree_map(f, v) for k, v in x.items()}
    return x if x is None else f(x)


def _merged(a, outer, inner, b1, b2):
    """An argument of vmap(vmap(f)) as one of a single vmap over b1 * b2 examples (the
    outer index first): each example's value, repeated where one level shares it."""
    def leaf(x):
        x = np.asarray(x) if not hasattr(x, "shape") else x
        xp = backend_of((x,))
        if outer is not None:
            x = xp.moveaxis(x, outer, 0)
        if inner is not None:
            x = xp.moveaxis(x, inner + (outer is not None), int(outer is not None))
        rest = x.shape[(outer is not None) + (inner is not None):]
        if outer is None:
            x = xp.broadcast_to(x[None], (b1,) + x.shape)
        elif inner is None:
            x = xp.broadcast_to(x[:, None], (b1, b2) + rest)
        return xp.reshape(x, (b1 * b2,) + rest)
    return _tree_map(leaf, a)


class NestedVmap(Vmapped):
    """vmap(vmap(f)): run as one vmap of f over the outer and inner examples together
    (exact: the examples are independent), its result split back into the two axes."""

    def __init__(self, inner: Vmapped, in_axes=0, out_axes=0):
        super().__init__(inner, in_axes, out_axes)
        self.inner = inner
        if not all(isinstance(a, int) for a in (self.out_axes, inner.out_axes)):
            raise ArgumentError("vmap of vmap takes out_axes as one int at each level",
                                hint="Move the axes of the result after the call.")
        self._flat = {}

    def params(self):
        return self.inner.params()

    def generated_function(self, xp=np, spec=None):
        raise TransformError("vmap of vmap inside another transform (a derivative of it, "
                             "or vmap of it) is not supported yet", None,
                             "Call vmap(vmap(f)) directly, or vmap a derivative instead: "
                             "vmap(vmap(grad(f))).")

    @property
    @failures.public
    def source(self) -> str:
        if self._last is None:
            raise ArgumentError(f"source({self!r}): vmap of vmap's code is made at its first "
                                "call, as one vmap over both levels", hint="Call it once first.")
        return self._flat[self._last].source

    def _call(self, *args, **kwargs):
        n = len(self.params())
        if len(args) != n or kwargs:
            raise ArgumentError(f"vmap(vmap({describe(self.inner.fn)})) takes its {n} "
                                f"arguments by position")
        outer, inner = self._axes(n), self.inner._axes(n)
        for ax in outer + inner:
            if isinstance(ax, tuple):
                raise ArgumentError("vmap of vmap takes an int or None per argument as "
                                    "in_axes at each level, not a tuple item by item")
        b1 = _batch_size(args, outer, "the outer vmap")
        b2 = _batch_size([_tree_map(lambda x: np.take(x, 0, axis=o), a) if o is not None
                          else a for a, o in zip(args, outer)], inner, "the inner vmap")
        axes = tuple(None if o is None and i is None else 0 for o, i in zip(outer, inner))
        merged = [a if ax is None else _merged(a, o, i, b1, b2)
                  for a, o, i, ax in zip(args, outer, inner, axes)]
        if axes not in self._flat:
            self._flat[axes] = vmap(self.inner.fn, axes, 0)
        self._last = axes
        out = self._flat[axes](*merged)

        def split(x):
            x = x.reshape((b1, b2) + x.shape[1:])
            x = np.moveaxis(x, 1, self.inner.out_axes % (x.ndim - 1) + 1)
            return np.moveaxis(x, 0, self.out_axes % x.ndim)
        return _tree_map(split, out)


def _batch_size(args, axes, level):
    sizes = {np.shape(leaf)[ax] for a, ax in zip(args, axes) if ax is not None
             for leaf in _leaves(a)}
    if not sizes:
        raise ArgumentError(f"vmap: no argument is batched by {level} (its in_axes are all "
                            "None)")
    if len(sizes) > 1:
        raise ArgumentError(f"vmap: the arguments {level} batches have different batch "
                            f"sizes {sorted(sizes)}")
    return sizes.pop()


def vmap(fn: Any, in_axes=0, out_axes=0) -> Vmapped:
    """fn, written for one example, run on a batch of them.

    in_axes: for each positional argument, the axis that holds its examples, or None
    for an argument that is the same for every example (one int or None for all);
    a tuple or list argument with an int has its examples along that axis of every
    array in it, with a tuple of them item by item.  out_axes: where the result's batch
    axis goes (None: the result is the same for every example; a tuple: item by item).

    >>> import numpy as np
    >>> from s2sad import vmap, grad
    >>> def loss(w, x, y):
    ...     return (x @ w - y) ** 2
    >>> per_example = vmap(grad(loss), in_axes=(None, 0, 0))
    >>> per_example(np.ones(2), np.eye(2), np.zeros(2))
    array([[2., 0.],
           [0., 2.]])
    """
    if isinstance(fn, Vmapped):
        return NestedVmap(fn, in_axes, out_axes)
    return Vmapped(fn, in_axes, out_axes)
