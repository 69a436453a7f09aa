"""The array libraries that generated code runs on, besides NumPy.

Generated code reaches its array library only through ``xp``, and runtime
helpers only through :func:`array_namespace`, so any NumPy-compatible library
works once it is registered here: the module prefix of its array type, the
name of its array module, and how it differs (whether NumPy arrays may be
passed beside its arrays, how it scatter-adds).  CuPy and Dask are registered
below; :mod:`s2sad.testing.strict` registers its CuPy stand-in on import.
"""

import importlib

import numpy as np


class Backend:
    """An array library other than NumPy that generated code can run on (registered)."""

    def __init__(self, prefix, module, host_arrays=False, scatter_add=None, label=None):
        self.prefix, self.module_name, self.host_arrays = prefix, module, host_arrays
        self.label = label or module            # how errors name its arrays
        self._scatter_add, self._module = scatter_add, None

    @property
    def module(self):
        """The array module (imported at first use)."""
        if self._module is None:
            self._module = importlib.import_module(self.module_name)
        return self._module

    def scatter_add(self, z, index, g):
        """z[index] += g with repeated indices adding up, in place."""
        if self._scatter_add is None:
            self.module.add.at(z, index, g)
        else:
            mod, fn = self._scatter_add.rsplit(".", 1)
            getattr(importlib.import_module(mod), fn)(z, index, g)


_BACKENDS = []
_BY_TYPE = {}           # type -> its Backend, or None for NumPy's and Python's


def register_backend(prefix, module, host_arrays=False, scatter_add=None, label=None):
    """Arrays whose type's module starts with `prefix` run on the array module named
    `module`: array_namespace gives it to generated code and helpers.  host_arrays:
    NumPy arrays may be passed beside them (Dask; CuPy refuses the mix).  scatter_add:
    "module.function" for z[index] += g with repeated indices (default: module.add.at).
    label: how error messages name its arrays ("CuPy")."""
    _BACKENDS.append(Backend(prefix, module, host_arrays, scatter_add, label))
    _BY_TYPE.clear()


register_backend("cupy", "cupy", scatter_add="cupyx.scatter_add", label="CuPy")
register_backend("dask.array", "dask.array", host_arrays=True, label="Dask")


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
