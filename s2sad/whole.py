"""s2sad.jit of a user's function: the function transformed whole, then compiled.

``jit(residual)``, where residual adds up three Taylor-mode derivatives of a network, ran
residual as Python and each derivative's generated function compiled on its own: three
passes through the network that share nothing.  Transformed whole (the kind "call": the
function's own code in functional form, the s2sad functions it calls inlined), the
optimizer computes what they share once (the network's values, the lower Taylor
coefficients) and one generated function runs, compiled where Numba takes it.

Where s2sad refuses to transform the function (a construct it does not read, a call of an
unknown library function with arrays it cannot follow), the call runs as before: the
function as Python, the s2sad functions it calls compiled.  So it does where a rule refuses
a value while the code runs (an S2SADError there is s2sad's refusal, never a fault of the
function's: the attribute of a plain object read as a record's field, an exception that an
`except` catches), with one CompiledWarning.  A refusal is remembered per kind of call, so
it costs one attempt.  The code is given the arguments themselves: an object's methods are
called and it is passed on as the function does (derivative code reads a dataclass as a
dict of its fields).
"""

import types

import numpy as np

from . import compiled
from .calls import backend_of, call_spec
from .errors import ArgumentError, InternalError, S2SADError
from .transformed import Transformed
from .transforms.frontend.parse import library_function


class Whole(Transformed):
    """The user's function fn of a Jitted, as one generated function run compiled."""

    def __init__(self, jitted):
        super().__init__(jitted, "call")
        self.__name__ = f"jit_{getattr(self.fn, '__name__', 'function')}"
        self.refused = {}           # spec -> the S2SADError that refused it

    @staticmethod
    def passed(a):
        """An argument as the whole function's code takes it: the object itself, whose
        methods it calls and which it hands to other functions as fn does (a dataclass as
        a dict of its fields would be another object to them)."""
        return a

    def run(self, args, kwargs):
        """The call's result, or compiled.NOT_WHOLE where fn runs as Python: the call does
        not fit its code (values for *args), or s2sad refuses fn, when transforming it or
        where its code runs."""
        try:
            if backend_of(args) is not np or len(args) > len(self.params()):
                return compiled.NOT_WHOLE       # (values for *args: fn's own call takes them)
            if kwargs:
                self._check_binding(args, kwargs)   # an ArgumentError where they do not fit
            # (the letters alone: its code is given the objects themselves, whose methods
            # run as Python, not dicts of a dataclass's fields read for their class)
            spec = str(call_spec(self.params(), args, kwargs))
        except Exception:           # (a dataclass with a field not set): fn as Python
            return compiled.NOT_WHOLE
        if spec in self.refused:
            return compiled.NOT_WHOLE
        try:
            art = self.artifact(spec)
        except InternalError:
            raise                   # a bug of s2sad's is shown, not run around
        except S2SADError as e:
            self.refused[spec] = e
            return compiled.NOT_WHOLE
        try:
            return self._general(args, kwargs)
        except InternalError:
            raise
        except ArgumentError:       # they do not fit fn: its own call says how, each time
            return compiled.NOT_WHOLE
        except S2SADError as e:     # a rule's refusal where the code ran: fn runs as Python
            self.refused[spec] = e
            self._warn_refused(e, art.module.impure)
            return compiled.NOT_WHOLE

    def _warn_refused(self, e, impure):
        """The warning that fn runs as Python from now on, for calls of this kind: a rule
        refused a value where the whole function's code ran (the attribute of an object
        that is no record, an exception that an `except` would catch), a refusal meant
        for a derivative or for a path s2sad does not take, not a fault of fn's."""
        again = "; a call before that line that acts (a method's, a print, a draw) ran " \
            "twice" if impure else ""
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        compiled.warn(self.fn.__name__, f"s2sad refused a value where its code, transformed "
                      f"whole, ran ({why}){again}", how="runs as Python, the s2sad "
                      "functions it calls compiled")


def whole(jitted):
    """The Whole of a Jitted whose fn is a Python function of the user's, else False."""
    fn = jitted.fn
    if isinstance(fn, types.FunctionType) and not library_function(fn):
        return Whole(jitted)
    return False


compiled.WHOLE.append(whole)
