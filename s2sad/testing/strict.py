"""A strict CuPy stand-in that runs on a CPU: NumPy arrays that refuse what CuPy refuses.

CuPy arrays live on a GPU, and CuPy refuses every *implicit* device-to-host
conversion that NumPy allows silently.  Code that would break on a GPU
breaks here too, on a CPU, so the test suite can prove s2sad's rules and
runtime helpers GPU-safe without a GPU (``S2SAD_TEST_BACKEND=strict`` or
``python -m pytest --backend strict``).  What raises, as on CuPy:

- ``np.asarray(x)``, ``np.array(x)`` and any NumPy call that would convert
  ``x`` (``__array__`` raises TypeError); ``.get()`` is the explicit copy to
  the host, and ``.tolist()`` / ``.item()`` / ``float(x)`` of a one-element
  array are explicit reads, as on CuPy.
- ``float(x)``, ``int(x)``, ``complex(x)`` of a multi-element array, ``len``
  of and iteration over a 0-d array, ``operator.index`` of a non-integer.
- A NumPy array, list or tuple as an operand of an arithmetic operator, a
  ufunc or a function (CuPy: "Unsupported type"); a NumPy array may only be
  copied to the device explicitly (``asarray``) or used as an index.
- A NumPy function or ufunc on a strict array runs the namespace's function of
  the same name (CuPy's ``__array_function__`` / ``__array_ufunc__``), and
  raises TypeError where CuPy has none: the names in ``MISSING`` and every
  ``numpy.linalg`` function outside ``LINALG``.
- Argument forms CuPy rejects: ``where=`` / ``initial=`` of reductions,
  ``correction=`` / ``mean=`` of ``var`` / ``std`` (``REJECTED``); a strict array
  where CuPy reads the argument on the host, as ``pad``'s widths and
  ``constant_values`` (``_HOST_ARGS``).

The namespace is :data:`xp` (the module ``s2sad.testing.strict.xp``): for each
function CuPy has, it unwraps the strict arrays, calls NumPy and wraps the
result, so results are bit-identical to NumPy's.  Like CuPy's, reductions
and integer indexing give 0-d arrays, never NumPy scalars.  Importing this
module registers the backend, so ``s2sad.runtime.array_namespace`` maps
strict arrays to :data:`xp` as it maps CuPy arrays to ``cupy``.

Not modelled: streams, asynchrony, device memory, CuPy's own dtype promotion
where it differs from NumPy's; Python lists passed to a function where CuPy
wants an array are let through (NumPy reads them).
"""

import sys
import types

import numpy as np

from .. import runtime

# numpy names that CuPy 13 lacks (its comparison table; cupy-cuda12x>=13 is s2sad's extra)
MISSING = frozenset("""
    acos acosh asin asinh atan atan2 atanh pow bitwise_left_shift bitwise_right_shift
    bitwise_invert bitwise_count concat permute_dims matrix_transpose vecdot matvec vecmat
    cumulative_sum cumulative_prod unstack isdtype astype unique_all unique_counts
    unique_inverse unique_values trapezoid apply_over_axes asmatrix busday_count
    busday_offset is_busday datetime_as_string datetime_data fromregex genfromtxt loadtxt
    savetxt nditer nested_iters ndenumerate real_if_close spacing put_along_axis
    min_scalar_type
""".split())
# numpy.linalg functions that cupy.linalg has
LINALG = frozenset("""
    cholesky qr svd eigh eigvalsh norm det matrix_rank slogdet solve tensorsolve lstsq inv
    pinv tensorinv matrix_power
""".split())
_REDUCTION = ("where", "initial")
REJECTED = {name: _REDUCTION for name in
            "sum prod max min amax amin mean all any nansum nanprod nanmax nanmin nanmean"
            .split()}
REJECTED.update(var=("correction", "mean", "where"), std=("correction", "mean", "where"))
# functions that copy host data to the device: a NumPy array is a fine argument; and
# functions whose indices CuPy uploads, as it does for x[i] (name: position, keyword)
_UPLOAD = frozenset("array asarray asanyarray ascontiguousarray asfortranarray".split())
_DUCK = frozenset(["transpose"])        # cupy.transpose(a) is a.transpose(): any array
_INDICES = {"take": (1, "indices"), "take_along_axis": (1, "indices"), "put": (1, "ind"),
            "compress": (0, "condition"), "choose": (0, "a")}
# arguments that CuPy reads on the host (numpy.array): a strict array there raises, e.g.
# cupy.pad's widths and values ("You cannot specify cupy.ndarray"; name: positions, keywords)
_HOST_ARGS = {"pad": ((1,), ("pad_width", "constant_values", "end_values", "stat_length"))}
_HOST_MESSAGE = ("Implicit conversion to a NumPy array is not allowed. "
                 "Please use `.get()` to construct a NumPy array explicitly.")
_SCALARS = (bool, int, float, complex, np.generic)


def _unsupported(x):
    return TypeError(f"Unsupported type {type(x)}")


def _operand(x):
    """x as an operand of an operator or a ufunc: strict arrays unwrapped, scalars kept."""
    if type(x) is ndarray:
        return x._a
    if isinstance(x, _SCALARS) or x is None:
        return x
    raise _unsupported(x)


def _unwrap(x, upload=False):
    """An argument of a namespace function, strict arrays unwrapped (inside tuples and lists
    too); a NumPy array is refused unless the function uploads."""
    if type(x) is ndarray:
        return x._a
    if isinstance(x, np.ndarray):
        if not upload:
            raise _unsupported(x)
        return x.copy()                         # a copy to the device: never the same buffer
    if isinstance(x, (tuple, list)):          # a tuple subclass (s2sad's Cotangent) too
        return (list if isinstance(x, list) else tuple)(_unwrap(e, upload) for e in x)
    return x


def _index(i):
    """An index: strict arrays unwrapped; NumPy arrays and lists allowed (CuPy uploads them)."""
    if type(i) is ndarray:
        return i._a
    if type(i) is tuple:
        return tuple(_index(e) for e in i)
    return i


def _on_host(x):
    """x, an argument CuPy converts with numpy.array: refused if it holds a strict array."""
    if type(x) is ndarray:
        raise TypeError(_HOST_MESSAGE)
    if isinstance(x, (tuple, list)):
        for e in x:
            _on_host(e)


def _wrap(r):
    """A NumPy result as CuPy gives it: arrays and scalars as strict arrays (0-d for a
    scalar), tuples item by item."""
    if isinstance(r, np.ndarray):
        return ndarray(r)
    if isinstance(r, np.generic):
        return ndarray(np.asarray(r))
    if isinstance(r, tuple):
        items = [_wrap(e) for e in r]
        return type(r)(*items) if hasattr(r, "_fields") else type(r)(items)
    if isinstance(r, list):
        return [_wrap(e) for e in r]
    return r


def _check_kwargs(name, kwargs):
    for k in REJECTED.get(name, ()):
        if k in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument {k!r} "
                            "(CuPy does not support it)")


def _function(f, name):
    """f (a NumPy function) as the namespace's: strict arrays in, strict arrays out."""
    upload = name in _UPLOAD or name in _DUCK
    at, key = _INDICES.get(name, (None, None))
    host_at, host_keys = _HOST_ARGS.get(name, ((), ()))

    def call(*args, **kwargs):
        _check_kwargs(name, kwargs)
        for x in [a for i, a in enumerate(args) if i in host_at] + \
                [v for k, v in kwargs.items() if k in host_keys]:
            _on_host(x)
        args = [_unwrap(a, upload or i == at) for i, a in enumerate(args)]
        kwargs = {k: _unwrap(v, upload or k == key) for k, v in kwargs.items()}
        return _wrap(f(*args, **kwargs))
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"numpy.{name} on strict arrays (as cupy.{name})."
    return call


class Ufunc:
    """A NumPy ufunc on strict arrays: __call__, reduce, accumulate, outer, at."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__
        self.nin, self.nout = uf.nin, uf.nout

    def __repr__(self):
        return f"<strict ufunc {self.__name__!r}>"

    def _kw(self, kwargs):
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_operand(o) for o in (out if isinstance(out, tuple)
                                                        else (out,)))
        return kwargs

    def __call__(self, *args, **kwargs):
        return _wrap(self._uf(*[_operand(a) for a in args], **self._kw(kwargs)))

    def reduce(self, a, *args, **kwargs):
        _check_kwargs("sum", kwargs)
        return _wrap(self._uf.reduce(_operand(a), *args, **self._kw(kwargs)))

    def accumulate(self, a, *args, **kwargs):
        return _wrap(self._uf.accumulate(_operand(a), *args, **self._kw(kwargs)))

    def outer(self, a, b, **kwargs):
        return _wrap(self._uf.outer(_operand(a), _operand(b), **self._kw(kwargs)))

    def at(self, a, index, b=None):
        if type(a) is not ndarray:
            raise _unsupported(a)
        args = () if b is None else (_operand(b),)
        self._uf.at(a._a, _index(index), *args)


def scatter_add(a, index, value):
    """a[index] += value with repeated indices adding up (as cupyx.scatter_add)."""
    if type(a) is not ndarray:
        raise _unsupported(a)
    np.add.at(a._a, _index(index), _operand(value))


_METHODS = frozenset("""
    all any argmax argmin argpartition argsort astype choose clip compress conj conjugate copy
    cumprod cumsum diagonal dot fill flatten max mean min nonzero partition prod ptp put ravel
    repeat reshape round searchsorted sort squeeze std sum swapaxes take trace transpose var
    view
""".split())


def _binary(name, reflected=False):
    op = getattr(np.ndarray, name)

    def method(self, other):
        if name in ("__eq__", "__ne__") and not isinstance(other, (ndarray,) + _SCALARS):
            return NotImplemented
        return _wrap(op(self._a, _operand(other)))
    method.__name__ = name
    return method


def _unary(name):
    op = getattr(np.ndarray, name)

    def method(self):
        return _wrap(op(self._a))
    method.__name__ = name
    return method


class ndarray:
    """A NumPy array standing for a CuPy array: every implicit host conversion raises."""

    __slots__ = ("_a",)
    __hash__ = None

    def __init__(self, a):
        self._a = a

    # -- explicit reads (a host copy, as on CuPy) --
    def get(self):
        """A NumPy copy of the array (cupy.ndarray.get)."""
        return self._a.copy()

    def tolist(self):
        return self._a.tolist()

    def item(self, *args):
        return self._a.item(*args)

    # -- what CuPy refuses --
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_HOST_MESSAGE)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        f = getattr(xp, ufunc.__name__, None)
        if not isinstance(f, Ufunc):
            return NotImplemented
        return getattr(f, method)(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        mod = func.__module__ or ""
        space = {"numpy": xp, "numpy.linalg": xp.linalg, "numpy.fft": xp.fft,
                 "numpy.lib.stride_tricks": xp.lib.stride_tricks}.get(mod)
        f = getattr(space, func.__name__, None) if space is not None else None
        if f is None or f is func:
            return NotImplemented          # NumPy raises TypeError, as for a CuPy array
        return f(*args, **kwargs)

    def _scalar(self, kind):
        if self._a.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return kind(self._a.reshape(-1)[0])

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __bool__(self):
        return bool(self._a.reshape(-1)[0]) if self._a.size == 1 else bool(self._a)

    def __index__(self):
        if self._a.ndim or self._a.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._a)

    def __len__(self):
        if not self._a.ndim:
            raise TypeError("len() of unsized object")
        return len(self._a)

    def __iter__(self):
        if not self._a.ndim:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec) if self._a.ndim == 0 else repr(self)

    # -- indexing --
    def __getitem__(self, index):
        return _wrap(self._a[_index(index)])

    def __setitem__(self, index, value):
        if isinstance(value, (tuple, list)):
            raise _unsupported(value)
        self._a[_index(index)] = value._a if type(value) is ndarray else value

    # -- attributes --
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray(self._a.T))
    real = property(lambda self: _wrap(self._a.real))
    imag = property(lambda self: _wrap(self._a.imag))

    def __getattr__(self, name):
        if name not in _METHODS:
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r} "
                                 "(s2sad.testing.strict)")
        method = getattr(self._a, name)

        def call(*args, **kwargs):
            _check_kwargs(name, kwargs)
            return _wrap(method(*[_unwrap(a) for a in args],
                                **{k: _unwrap(v) for k, v in kwargs.items()}))
        return call


for _name in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift divmod "
              "lt le gt ge eq ne").split():
    for _fmt in ("__{}__", "__r{}__"):
        _dunder = _fmt.format(_name)
        if hasattr(np.ndarray, _dunder):
            setattr(ndarray, _dunder, _binary(_dunder))
for _dunder in ("__neg__", "__pos__", "__abs__", "__invert__"):
    setattr(ndarray, _dunder, _unary(_dunder))


def _namespace(source, name, keep):
    """A module of source's names that keep(name) admits, each working on strict arrays."""
    mod = types.ModuleType(name, f"NumPy's {source.__name__} on strict arrays (as CuPy's).")
    for n in dir(source):
        if n.startswith("_") or not keep(n):
            continue
        obj = getattr(source, n)
        if isinstance(obj, np.ufunc):
            obj = Ufunc(obj)
        elif isinstance(obj, types.ModuleType):
            continue
        elif callable(obj) and not isinstance(obj, type):
            obj = _function(obj, n)
        setattr(mod, n, obj)
    sys.modules[name] = mod
    return mod


#: the array module of strict arrays (what ``cupy`` is to CuPy arrays)
xp = _namespace(np, __name__ + ".xp", lambda n: n not in MISSING)
xp.ndarray = ndarray
xp.linalg = _namespace(np.linalg, __name__ + ".xp.linalg", LINALG.__contains__)
xp.fft = _namespace(np.fft, __name__ + ".xp.fft", lambda n: True)
xp.lib = types.ModuleType(__name__ + ".xp.lib", "cupy.lib: its stride tricks")
xp.lib.stride_tricks = _namespace(np.lib.stride_tricks, __name__ + ".xp.lib.stride_tricks",
                                  ("sliding_window_view", "as_strided").__contains__)
xp.scatter_add = scatter_add


def asarray(a, dtype=None):
    """A strict array from host data (cupy.asarray)."""
    return xp.asarray(a, dtype=dtype)


def asnumpy(a):
    """A NumPy array from a strict array (cupy.asnumpy); anything else as np.asarray does."""
    return a.get() if type(a) is ndarray else np.asarray(a)


runtime.register_backend(__name__, __name__ + ".xp", scatter_add=__name__ + ".scatter_add",
                         label="strict (CuPy stand-in)")
