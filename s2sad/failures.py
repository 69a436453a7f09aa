"""Every failure of a transform is an S2SADError at the user's line.

Two things can go wrong inside s2sad while it transforms a function, and
neither may reach the user as a bare exception from s2sad's own frames:

* a refusal (an :class:`S2SADError`) raised while transforming code that
  s2sad generated itself (a second-order derivative transforms first-order
  code): its location is a line of generated code, which means nothing to
  the user.  :func:`relocate` points it at the user's line that the
  generated line came from (through every order), and says so.
* a bug: any other exception from inside the passes.  :func:`internal`
  turns it into an :class:`InternalError` naming the user's function and,
  where it can be found, the statement being transformed.

:func:`transforming` applies both around a transform.

When generated code *runs*, :func:`at_run_time` sorts what it raises: an
error of the function's own computation (a line of the primal, which the
plain function runs too: a shape mismatch, the user's ValueError, a
RecursionError) passes through as it is, with a note naming the user's line;
an error of the derivative's own statements (the backward pass, at any order)
becomes a :class:`DerivativeError` at the user's line; a name the generated
code left unbound is s2sad's bug, an :class:`InternalError`.
"""

import contextlib
import functools
import os
import types

from . import generated
from .errors import DerivativeError, InternalError, Location, S2SADError, UnsupportedSyntaxError

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


# -- the public entry points: the user's frames, not s2sad's ------------------------------------

def _internal_frame(tb) -> bool:
    return tb.tb_frame.f_code.co_filename.startswith(_PACKAGE + os.sep)


def trimmed(tb):
    """tb without the frames of s2sad's own modules: the user's frames, those of the code
    s2sad generated for them (shown from linecache, under a note naming the user's line)
    and library frames stay.  S2SAD_FULL_TRACEBACK=1 keeps every frame."""
    if os.environ.get("S2SAD_FULL_TRACEBACK"):
        return tb
    keep = []
    while tb is not None:
        if not _internal_frame(tb):
            keep.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(keep):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def public(fn):
    """Decorate a public entry point: an exception leaves it (unchanged, the same
    object) with s2sad's internal frames cut from its traceback and from those of the
    exceptions chained to it, so a refusal shows the user's line and the message, and the
    user's own error the user's frames."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise trim(e)
    return entry


def trim(e: BaseException) -> BaseException:
    """e, and the exceptions chained to it, with s2sad's frames cut from their tracebacks:
    what a public entry point raises (``raise trim(e)``, see public)."""
    seen, link = set(), e.__cause__ or e.__context__
    if isinstance(e, InternalError):
        link = None         # a bug: its cause keeps every frame, for the report
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = trimmed(link.__traceback__)
        link = link.__cause__ or link.__context__
    return e.with_traceback(trimmed(e.__traceback__))



def _generated(filename: str):
    """The generated module whose code lives in filename, if any."""
    return generated.MODULES.get(filename)


def user_location(loc):
    """loc, or for a line of generated code the user's line it came from (through
    every order: code generated from generated code maps back twice)."""
    return _trace_back(loc)[0]


def _trace_back(loc):
    """(the user's Location for loc, how many generated modules lay in between)."""
    hops = 0
    while loc is not None and hops < 50:
        mod = _generated(loc.filename)
        if mod is None:
            break
        loc = _line_of(mod, loc.line, loc.text)
        hops += 1
    return loc, hops


def _line_of(mod, line: int, text: str):
    """The user's Location of a line of mod (as linecache or as source() numbers it)."""
    for candidate in (line, line + _offset(mod)):
        hit = mod.lines.get(candidate)
        if hit is not None:
            return hit
    # a line with no statement of its own (a def, a comment): the nearest one above
    below = [k for k in mod.lines if k <= line + _offset(mod)]
    return mod.lines[max(below)] if below else None


def _offset(mod) -> int:
    head = mod.source.split("\n\n", 1)[0]
    return head.count("\n") + 1 + 1


def relocate(e: S2SADError) -> S2SADError:
    """e, pointed at the user's line where it points into generated code.  A line of
    the small wrappers s2sad writes itself (``<s2sad: f>``, to differentiate a NumPy
    function directly) is no line of the user's: the message keeps no location."""
    loc = e.location
    if loc is not None and _generated(loc.filename) is None and \
            str(loc.filename).startswith("<s2sad"):
        e.location = None
        e.args = (e._format(),)
        return e
    if loc is None or _generated(loc.filename) is None:
        return e
    user, hops = _trace_back(loc)
    e.location = None if user is not None and str(user.filename).startswith("<s2sad") else user
    # no line of the user's: code s2sad wrote itself (a Jacobian's loop over its rows)
    where = "for this line" if e.location is not None else \
        "around your function, at no line of yours"
    if e.message.startswith("vmap"):    # batching the code (vmap(grad(f))): no order
        e.message = (f"{e.message} (met in the code s2sad generated {where}, made by "
                     f"{hops} transform{'s' if hops > 1 else ''})")
    else:
        e.message = (f"{e.message} (met while differentiating, at order {hops + 1}, the "
                     f"derivative code s2sad generated {where})")
    e.args = (e._format(),)
    return e


def _statement_location(tb):
    """The user's Location of the innermost statement a pass was working on when the
    traceback tb was raised: a local `s`, `st` or `L` with a .src, or a gast `node`
    that its pass object can locate."""
    found = None
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename.startswith(_PACKAGE):
            local = frame.f_locals
            for name in ("s", "st", "stmt", "L"):
                src = getattr(local.get(name), "src", None)
                if isinstance(src, Location):
                    found = src
            node, owner = local.get("node"), local.get("self")
            if node is not None and hasattr(node, "lineno") and hasattr(owner, "loc"):
                try:
                    found = owner.loc(node)
                except Exception:       # a location is a courtesy: never fail for it
                    pass
        tb = tb.tb_next
    return found


def _name(fn) -> str:
    for _ in range(20):
        inner = getattr(fn, "fn", None) or getattr(fn, "func", None)
        if inner is None or inner is fn:
            break
        fn = inner
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if code is not None:
        return f"{name} ({code.co_filename}:{code.co_firstlineno})"
    return name


def internal(e: BaseException, fn) -> InternalError:
    """An InternalError for an exception from inside s2sad's passes."""
    loc = user_location(_statement_location(e.__traceback__))
    err = InternalError(
        f"s2sad failed while transforming {_name(fn)}: {type(e).__name__}: {e}", loc,
        "This is a bug in s2sad, not in your code. Please report it with the function; "
        "meanwhile, rewriting the line above in simpler steps may avoid it.")
    return err


@contextlib.contextmanager
def transforming(fn):
    """Refusals at the user's line; anything else from the passes an InternalError."""
    try:
        yield
    except S2SADError as e:
        raise relocate(e) from None
    except MemoryError:
        raise
    except Exception as e:
        raise internal(e, fn) from e


# -- errors raised while generated code runs ----------------------------------------------------

def _frames(tb):
    """(module, line) for each frame of generated code in the traceback, outermost first."""
    out = []
    while tb is not None:
        mod = _generated(tb.tb_frame.f_code.co_filename)
        if mod is not None:
            out.append((mod, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _in_backward(mod, line) -> bool:
    """Whether a line of generated code belongs to a backward pass, at any order: it is
    one of mod's adjoint statements, or it came from one of the code it was made from."""
    for _ in range(50):
        if line in mod.backward:
            return True
        loc = mod.lines.get(line)
        inner = _generated(loc.filename) if loc is not None else None
        if inner is None:
            return False
        mod, line = inner, _generated_line(inner, loc.line)
    return False


def _generated_line(mod, line):
    """A Location's line in generated code, as mod's wrapped text numbers it."""
    return line if line in mod.lines or line in mod.backward else line + _offset(mod)


# file -> [(first line, last line, exception types, the except's line)]: the bodies of
# the `try` statements s2sad lowered (resolve_values), their handlers left out
_HANDLED = {}


def note_handled(filename, first, last, types, line):
    """A `try` body at lines first..last of filename whose `except` (at line) catches
    types: s2sad runs the body as if it raised nothing (see handled)."""
    entry = (first, last, types, line)
    if entry not in _HANDLED.setdefault(filename, []):
        _HANDLED[filename].append(entry)


def handled(e, user):
    """The refusal for e, raised where the code ran at the user's line, where an `except`
    around it would catch it (the path s2sad did not differentiate); None otherwise."""
    if user is None:
        return None
    for first, last, caught, line in _HANDLED.get(user.filename, ()):
        if first <= user.line <= last and isinstance(e, caught):
            return UnsupportedSyntaxError(
                f"an exception that the `except` at line {line} catches ({type(e).__name__}: "
                f"{e}), raised where the code runs,", user,
                "s2sad differentiates a `try` body along the path that raises nothing: test "
                "the value instead (`np.where(x == 0, np.nan, 1 / x)`, or an `if`), so that "
                "both paths are code s2sad sees.")
    return None


def at_run_time(e: BaseException) -> BaseException:
    """What to raise for e, raised while generated code ran: e itself (the user's
    own error, with a note naming their line) or an S2SADError about the derivative."""
    frames = _frames(e.__traceback__)
    if isinstance(e, S2SADError):
        if e.location is None and frames:
            # a helper's refusal at run time: at the user's line that called it
            e.location = user_location(_line_of(*frames[-1], ""))
            e.args = (e._format(),)
        return relocate(e)
    if not frames:
        return e
    mod, line = frames[-1]
    user = user_location(_line_of(mod, line, ""))
    caught = None if _in_backward(mod, line) else handled(e, user)
    if caught is not None:              # (the primal's: where the plain call raises too)
        return caught
    if isinstance(e, (UnboundLocalError, NameError)):
        return InternalError(
            f"the code s2sad generated failed: {type(e).__name__}: {e}", user,
            "This is a bug in s2sad, not in your code. Please report it with the function.")
    if _in_backward(mod, line) and not isinstance(e, (RecursionError, MemoryError)):
        return DerivativeError(
            f"the derivative of this line could not be computed: {type(e).__name__}: {e}",
            user, "The function itself runs here; its derivative's formula does not (for "
            "example, the inverse of a singular matrix).")
    if user is not None and hasattr(e, "add_note") and \
            not any("s2sad generated" in n for n in getattr(e, "__notes__", [])):
        e.add_note(f"in the derivative code s2sad generated for {user.filename}, "
                   f"line {user.line}:\n    {user.text.strip()}")
    return e
