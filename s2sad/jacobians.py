"""jacobian and hessian as functions s2sad can read again, and the code that calls of
s2sad's API inside a differentiated function become.

``jacobian(f, wrt)`` and ``hessian(f, wrt)`` return a :class:`Jacobian`: called at
the top level it runs the API's own (fast) jacobian or hessian; read by s2sad
(``grad(lambda x: np.sum(jacobian(f)(x)))``, ``jacobian(jacobian(f))``) it is
Python source, one reverse pass per output entry, which s2sad transforms like
any code::

    def jacobian_f(x, y):
        out = f(x, y)
        rows = []
        for k in range(np.size(out)):
            rows.append(np.ravel(grad(pick_f, wrt=0)(x, y, k)))
        return np.reshape(np.stack(rows), np.shape(out) + np.shape(x))

A tuple ``wrt`` gives a tuple, as JAX does: ``jacobian(f, wrt=(0, 1))(x, y)`` is
``(J_x, J_y)`` and ``hessian`` ``((H_xx, H_xy), (H_yx, H_yy))``, with ``H_ij`` the
Jacobian in argument j of the Jacobian in argument i.  ``pullback_code(f, n)`` is
what ``pb(d)`` becomes for ``y, pb = vjp(f, x)`` inside a differentiated
function: ``grad`` of ``sum(f(*args) * d)`` in the n arguments.
"""

import functools
from typing import Any, Dict

import numpy as np

from . import registry
from .calls import positional_params
from .errors import ArgumentError
from .pipeline import _key, _name_of
from .transformed import Transformed, _identifier, _synthetic


def _indices(wrt, what):
    for i in (wrt if isinstance(wrt, tuple) else (wrt,)):
        if not isinstance(i, int) or isinstance(i, bool):
            raise ArgumentError(f"{what} takes an argument index (an int) or a tuple of "
                                f"them, got wrt={wrt!r}")
    return wrt


def _params(fn, k=None):
    try:
        ps = list(positional_params(fn))
    except Exception:       # a callable s2sad cannot read: generic names
        ps = []
    if k is not None and len(ps) != k:
        ps = [f"a{j}" for j in range(k)]
    return ps


# the API's jacobian and hessian for one index (fast, not readable), by kind
_TOP: Dict[str, Any] = {}


def readable(kind):
    """Decorate the API's jacobian or hessian for one index: the public function takes
    an index or a tuple of them and returns a Jacobian."""
    def wrap(factory):
        _TOP[kind] = factory

        @functools.wraps(factory)
        def public(fn, wrt=0, **options):
            if isinstance(wrt, list):
                wrt = tuple(wrt)
            if isinstance(wrt, tuple):
                if not wrt:
                    raise ArgumentError(f"{kind} takes an argument index (an int) or a "
                                        "non-empty tuple of them, got wrt=()")
                for i in wrt:
                    factory(fn, i, **options)       # the API checks each index
            else:
                factory(fn, wrt, **options)
            return Jacobian(fn, wrt, kind, options)
        return public
    return wrap


class Jacobian(registry.Derived):
    """jacobian(fn, wrt) or hessian(fn, wrt): see the module docstring."""

    def __init__(self, fn, wrt, kind="jacobian", options=None):
        self.fn, self.wrt, self.kind = fn, _indices(wrt, kind), kind
        functools.update_wrapper(self, fn, updated=())
        self.__name__ = f"{kind}_{_name_of(fn)}"
        self._options = options or {}
        self._made: Dict[Any, Any] = {}

    def __repr__(self):
        return f"<s2sad.{self.kind}({_name_of(self.fn)}, wrt={self.wrt!r})>"

    def __call__(self, *args):
        if not isinstance(self.wrt, tuple):
            return self._one(self.wrt, None)(*args)
        if self.kind == "jacobian":
            return tuple(self._one(i, None)(*args) for i in self.wrt)
        return tuple(tuple(self._one(i, j)(*args) for j in self.wrt) for i in self.wrt)

    def _one(self, i, j):
        """The top-level function for one entry (a Hessian block H_ij for j not None)."""
        key = (i, j)
        if key not in self._made:
            if j is None or i == j:
                self._made[key] = _TOP[self.kind](self.fn, i, **self._options)
            else:
                self._made[key] = _TOP["jacobian"](Jacobian(self.fn, i), j, mode="forward")
        return self._made[key]

    def params(self):
        return _params(self.fn)

    def generated_function(self, xp=np, spec=None):
        if "source" not in self._made:
            self._made["source"] = self._write()
        return self._made["source"]

    def _write(self):
        """The readable source (see the module docstring)."""
        ps = self.params()
        args = ", ".join(ps)
        base = _identifier(_name_of(self.fn))
        ns = {"np": np}
        one = lambda i, j=None: self._entry(i, j, ns)           # noqa: E731
        if not isinstance(self.wrt, tuple):
            ret = f"{one(self.wrt)}({args})"
        elif self.kind == "jacobian":
            ret = "(" + "".join(f"{one(i)}({args}), " for i in self.wrt) + ")"
        else:
            ret = "(" + "".join("(" + "".join(f"{one(i, j)}({args}), " for j in self.wrt)
                                + "), " for i in self.wrt) + ")"
        text = f"def {self.kind}_{base}({args}):\n    return {ret}\n"
        return _synthetic(f"{self.kind}: {base}", text, ns)[f"{self.kind}_{base}"]

    def _entry(self, i, j, ns):
        """The name, in ns, of the readable Jacobian for one entry."""
        if self.kind == "hessian":
            inner = Jacobian(self.fn, i)
            fn = _readable_jacobian(inner, i if j is None else j, len(self.params()))
        else:
            fn = _readable_jacobian(self.fn, i, len(self.params()))
        name = f"_s2sad_jacobian_{len(ns)}"
        ns[name] = fn
        return name


def _readable_jacobian(fn, i, k):
    """def jacobian_f(*args): one reverse pass per output entry (module docstring)."""
    ps = _params(fn, k)
    if not -k <= i < k:
        raise ArgumentError(f"jacobian: wrt={i} is not an index of the {k} arguments of "
                            f"{_name_of(fn)}")
    i %= k
    args = ", ".join(ps)
    base = _identifier(_name_of(fn))
    kk = "k" if "k" not in ps else "entry_k"
    text = (f"def pick_{base}({args}, {kk}):\n"
            f"    return np.ravel(_s2sad_f({args}))[{kk}]\n\n\n"
            f"def jacobian_{base}({args}):\n"
            f"    out = _s2sad_f({args})\n"
            f"    rows = []\n"
            f"    for {kk} in range(np.size(out)):\n"
            f"        rows.append(np.ravel(_s2sad_row({args}, {kk})))\n"
            f"    return np.reshape(np.stack(rows), np.shape(out) + np.shape({ps[i]}))\n")
    ns = _synthetic(f"jacobian: {base}", text, {"_s2sad_f": fn, "np": np})
    ns["_s2sad_row"] = Transformed(ns[f"pick_{base}"], "grad", i)
    return ns[f"jacobian_{base}"]


_pullbacks: Dict[Any, Any] = {}


def pullback_code(fn, n: int):
    """P(*args, d) == vjp(fn, *args)[1](d): grad of sum(fn(*args) * d) in the n args."""
    key = (_key(fn), n)
    p = _pullbacks.get(key)
    if p is None:
        ps = _params(fn, n)
        d = "dout" if "dout" not in ps else "cotangent"
        base = _identifier(_name_of(fn))
        args = ", ".join(ps)
        text = (f"def contract_{base}({args}, {d}):\n"
                f"    return np.sum(_s2sad_f({args}) * {d})\n")
        ns = _synthetic(f"pullback: {base}", text, {"_s2sad_f": fn, "np": np})
        p = _pullbacks[key] = Transformed(ns[f"contract_{base}"], "grad",
                                          tuple(range(n)))
    return p


def jvp_code(fn):
    """fn's forward-mode code: J(*args, *tangents) -> (out, tangent)."""
    return Transformed(fn, "jvp")


def mark_inline(call=(), vjp=None, jvp=None, fprop=None):
    """Tell the passes what a call of each API function means inside code s2sad
    transforms (resolve_values reads ``__s2sad_inline__``)."""
    for f in call:
        f.__s2sad_inline__ = "call"
    vjp.__s2sad_inline__ = ("vjp", pullback_code)
    jvp.__s2sad_inline__ = ("jvp", jvp_code)
