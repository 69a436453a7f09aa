"""s2sad.jit of a user's function: the function transformed whole, then compiled.

``jit(residual)``, where residual adds up three Taylor-mode derivatives of a network, ran
residual as Python and each derivative's generated function compiled on its own: three
passes through the network that share nothing.  Transformed whole (the kind "call": the
function's own code in functional form, the s2sad functions it calls inlined), the
optimizer computes what they share once (the network's values, the lower Taylor
coefficients) and one generated function runs, compiled where Numba takes it.

Where s2sad refuses to transform the function (a construct it does not read, a call of an
unknown library function with arrays it cannot follow), the call runs as before: the
function as Python, the s2sad functions it calls compiled.  A refusal is remembered per
kind of call, so it costs one attempt.
"""

import types

import numpy as np

from . import compiled
from .calls import backend_of, call_spec
from .errors import InternalError, S2SADError
from .transformed import Transformed
from .transforms.frontend.parse import library_function


class Whole(Transformed):
    """The user's function fn of a Jitted, as one generated function run compiled."""

    def __init__(self, jitted):
        super().__init__(jitted, "call")
        self.__name__ = f"jit_{getattr(self.fn, '__name__', 'function')}"
        self.refused = {}           # spec -> the S2SADError that refused it

    def run(self, args, kwargs):
        """The call's result, or compiled.NOT_WHOLE where fn is not transformed whole."""
        if backend_of(args) is not np:
            return compiled.NOT_WHOLE
        try:
            spec = call_spec(self.params(), args, kwargs)
        except S2SADError:
            return compiled.NOT_WHOLE
        if spec in self.refused:
            return compiled.NOT_WHOLE
        try:
            self.artifact(spec)
        except InternalError:
            raise                   # a bug of s2sad's is shown, not run around
        except S2SADError as e:
            self.refused[spec] = e
            return compiled.NOT_WHOLE
        return self._general(args, kwargs)


def whole(jitted):
    """The Whole of a Jitted whose fn is a Python function of the user's, else False."""
    fn = jitted.fn
    if isinstance(fn, types.FunctionType) and not library_function(fn):
        return Whole(jitted)
    return False


compiled.WHOLE.append(whole)
