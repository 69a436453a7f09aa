"""The array libraries that generated code runs on, besides NumPy.

Generated code reaches its array library only through ``xp``, and runtime
helpers only through :func:`array_namespace`, so any NumPy-compatible library
works once it is registered here: the module prefix of its array type, the
name of its array module, and how it differs (whether NumPy arrays may be
passed beside its arrays, how it scatter-adds).  CuPy and Dask are registered
below; :mod:`s2sad.testing.strict` registers its CuPy stand-in on import.
"""

import importlib
import types

import numpy as np

from .errors import S2SADError


class Backend:
    """An array library other than NumPy that generated code can run on (registered)."""

    def __init__(self, prefix, module, host_arrays=False, scatter_add=None, label=None,
                 refuse_missing=False):
        self.prefix, self.module_name, self.host_arrays = prefix, module, host_arrays
        self.label = label or module            # how errors name its arrays
        self._scatter_add, self._module = scatter_add, None
        self.refuse_missing = refuse_missing

    @property
    def module(self):
        """The array module (imported at first use)."""
        if self._module is None:
            self._module = importlib.import_module(self.module_name)
            if self.refuse_missing:
                self._module = _Refusing(self._module, self.label)
        return self._module

    def scatter_add(self, z, index, g):
        """z[index] += g with repeated indices adding up, in place."""
        if self._scatter_add is None:
            self.module.add.at(z, index, g)     # refused by name where the module lacks it
        else:
            mod, fn = self._scatter_add.rsplit(".", 1)
            getattr(importlib.import_module(mod), fn)(z, index, g)


_BACKENDS = []
_BY_TYPE = {}           # type -> its Backend, or None for NumPy's and Python's


def register_backend(prefix, module, host_arrays=False, scatter_add=None, label=None,
                     refuse_missing=False):
    """Arrays whose type's module starts with `prefix` run on the array module named
    `module`: array_namespace gives it to generated code and helpers.  host_arrays:
    NumPy arrays may be passed beside them (Dask; CuPy refuses the mix).  scatter_add:
    "module.function" for z[index] += g with repeated indices (default: module.add.at).
    label: how error messages name its arrays ("CuPy").  refuse_missing: a function the
    module lacks is an S2SADError naming it (not an AttributeError from generated code)."""
    _BACKENDS.append(Backend(prefix, module, host_arrays, scatter_add, label, refuse_missing))
    _BY_TYPE.clear()


register_backend("cupy", "cupy", scatter_add="cupyx.scatter_add", label="CuPy")
register_backend("dask.array", "dask.array", host_arrays=True, label="Dask",
                 refuse_missing=True)


def backend_of(x):
    """The registered Backend of x's type, or None (NumPy arrays, numbers, containers)."""
    t = type(x)
    try:
        return _BY_TYPE[t]
    except KeyError:
        mod = t.__module__ or ""
        b = next((b for b in _BACKENDS if mod.startswith(b.prefix)), None)
        _BY_TYPE[t] = b
        return b


def array_namespace(*xs):
    """numpy, or the array module of the first argument from a registered library
    (cupy for a CuPy array, dask.array for a Dask array)."""
    for x in xs:
        b = backend_of(x)
        if b is not None:
            return b.module
    return np


def scatter_add(z, index, g):
    """z[index] += g in place, repeated indices adding up (np.add.at on any backend)."""
    b = backend_of(z)
    if b is None:
        np.add.at(z, index, g)
    else:
        b.scatter_add(z, index, g)
    return z


_METADATA = {"size": lambda a, axis=None: int(np.prod(np.shape(a) if axis is None
                                                    else np.shape(a)[axis])),
             "shape": lambda a: tuple(getattr(a, "shape", ())),
             "ndim": lambda a: len(getattr(a, "shape", ()))}


class _Refusing(types.ModuleType):
    """An array module whose missing functions are refused by name: `xp.add.at` on Dask is
    an S2SADError saying dask.array has no `add.at`, at the first call that needs it."""

    def __init__(self, module, label):
        super().__init__(module.__name__, module.__doc__)
        self.__dict__["_module"], self.__dict__["_label"] = module, label

    def __getattr__(self, name):
        obj = getattr(self._module, name, None)
        if obj is None and name in _METADATA:
            return _METADATA[name]              # reads the shape only, computes nothing
        if obj is None:
            raise S2SADError(f"{self.__name__} has no `{name}`: this derivative cannot run on "
                             f"{self._label} arrays (compute the input to NumPy first, or "
                             "avoid the construct that needs it)")
        if isinstance(obj, np.ufunc) or type(obj).__name__ == "ufunc":
            return _RefusingUfunc(obj, f"{self.__name__}.{name}", self._label)
        return obj


class _RefusingUfunc:
    """A ufunc of a refusing module: its missing methods (`at`) are refused by name too."""

    def __init__(self, ufunc, name, label):
        self._ufunc, self._name, self._label = ufunc, name, label

    def __call__(self, *args, **kwargs):
        return self._ufunc(*args, **kwargs)

    def __getattr__(self, name):
        obj = getattr(self._ufunc, name, None)
        if obj is None:
            raise S2SADError(f"{self._name} has no `.{name}`: this derivative cannot run on "
                             f"{self._label} arrays (a scatter-add, as for repeated indices)")
        return obj
