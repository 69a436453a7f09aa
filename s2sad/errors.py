"""The errors s2sad raises.

Every error derives from :class:`S2SADError`.  An error about the user's code
carries a :class:`Location` (file, line, column and the source line) and says
what to do instead, so a message reads like a compiler diagnostic::

    demo.py:12:4: a `while` loop is not supported yet
        12 |     while x > 0:
           |     ^
    s2sad differentiates straight-line code: ...
"""

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Location:
    """A place in a source file (1-based line, 0-based column)."""

    filename: str
    line: int
    col: int = 0
    text: str = ""

    def __str__(self):
        return f"{self.filename}:{self.line}:{self.col}"

    def excerpt(self) -> str:
        if not self.text:
            return ""
        gutter = f"{self.line:>6} | "
        caret = " " * (len(gutter) - 2) + "| " + " " * self.col + "^"
        return f"{gutter}{self.text.rstrip()}\n{caret}"


class S2SADError(Exception):
    """Base class of every error s2sad raises."""

    def __init__(self, message: str, location: Optional[Location] = None,
                 hint: str = ""):
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(self._format())

    def _format(self) -> str:
        parts = []
        head = f"{self.location}: {self.message}" if self.location else self.message
        parts.append(head)
        if self.location is not None and self.location.text:
            parts.append(self.location.excerpt())
        if self.hint:
            parts.append(self.hint)
        return "\n".join(parts)


class UnsupportedSyntaxError(S2SADError):
    """The function uses a Python construct that s2sad does not differentiate."""

    def __init__(self, construct: str, location: Optional[Location], hint: str = ""):
        self.construct = construct
        super().__init__(f"{construct} is not supported", location, hint)


class MissingRuleError(S2SADError):
    """A call to a function that has no derivative rule and no source to read."""


class SourceUnavailableError(S2SADError):
    """The source code of a function cannot be found (for example in a plain REPL)."""


class RuleError(S2SADError):
    """A derivative rule is malformed (raised when a rule is registered or read)."""


class TransformError(S2SADError):
    """Anything else that stops a transformation, with the place in the user's code."""


class ArgumentError(S2SADError, TypeError):
    """A derivative made or called with arguments that do not fit: a wrong count, an
    unknown keyword, ``wrt`` naming an argument that is not differentiable (an int),
    or something that is not a function of arrays (a class, a bound method).

    Also a :class:`TypeError`, as Python raises for a call that does not fit."""


class OptionError(S2SADError, ValueError):
    """An option of s2sad's own with a value it does not take (``mode=``, a backend's
    name, ``snapshots=``).  Also a :class:`ValueError`, as Python raises for one."""


class OutputError(S2SADError, TypeError):
    """The function's result cannot be differentiated as asked: ``grad`` of a function
    that returns a tuple, list or dict (use ``has_aux=True`` or ``vjp``), or a result
    that is not a number or array (a string, None)."""


class CotangentError(S2SADError, ValueError):
    """A cotangent passed to a pullback does not have the structure or shape of the
    function's result."""


class TangentError(S2SADError, ValueError):
    """A tangent passed to jvp does not have the structure or shape of its primal."""


class InternalError(S2SADError):
    """A bug in s2sad: something failed inside its passes or its generated code.  The
    message names the user's function and line; please report it."""


class DerivativeError(S2SADError):
    """The derivative code failed where the function itself runs (a rule's formula met
    a singular matrix, say): the original exception is its cause, the location the
    user's line."""


class CompiledWarning(UserWarning):
    """s2sad.jit runs a generated function as NumPy code, not compiled: Numba could not
    type it, or its compiled code met a case it leaves to NumPy (the message says which).
    The results are the NumPy path's."""


def several_outputs(x, gradients: bool) -> OutputError:
    """The refusal of grad of a function whose result x is a tuple, list or dict; gradients:
    x is a tuple or dict of gradients s2sad made (grad of a gradient of several inputs)."""
    if not gradients:
        return OutputError(
            f"grad of a function whose result is a {type(x).__name__}: s2sad "
            "differentiates one array or number", None,
            "Return the value to differentiate first and pass has_aux=True to get the rest "
            "back, or use vjp with a cotangent for each item, or grad_all for the sum.")
    if isinstance(x, dict):
        keys = ", ".join(map(repr, list(x)[:4])) + (", ..." if len(x) > 4 else "")
        what = f"a dict of {len(x)} gradients (one per key of a dict argument: {keys})"
    else:
        what = (f"a tuple of {len(x)} gradients (one per argument differentiated, or per "
                "item of a tuple or list argument)")
    return OutputError(f"grad of a function whose result is {what}: s2sad differentiates "
                       "one array or number", None, reduce_gradients_hint(isinstance(x, dict)))


def reduce_gradients_hint(of_a_dict: bool) -> str:
    """What to do where grad is asked to differentiate a tuple or dict of gradients."""
    if of_a_dict:
        return ("grad takes the derivative of one number: reduce the gradients to one in a "
                "function of your own, one of them (lambda p: grad(f)(p)['a']) or the sum "
                "of those you want (sum(grad(f)(p).values())), and differentiate that.")
    return ("grad takes the derivative of one number: pick one gradient with wrt= "
            "(grad(grad(f, wrt=0), wrt=1) is the mixed second derivative), or index or add "
            "them in a function of your own (lambda x, y: grad_all(f)(x, y)[0]); "
            "s2sad.hessian(f, wrt=(0, 1)) gives every second derivative at once.")
