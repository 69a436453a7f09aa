"""Function values known at transform time: a nested def or a lambda with the body that
defined it (:class:`Closure`), and a tuple or list that holds one (:class:`Functions`).

The lowering binds them to names, passes them to the functions it inlines and calls
them (lower.py, lower_control.py, lower_nonlocal.py); the generated code never holds
one: where a value is read, refuse_function refuses it.
"""

from ...errors import UnsupportedSyntaxError


class Closure:
    """A function value known at transform time: a nested def or a lambda (node), with
    the Lowering it was defined in (whose variables it reads when called) and its
    default values, computed where it was defined."""

    def __init__(self, node, owner, defaults, kw_defaults):
        self.node, self.owner = node, owner
        self.defaults, self.kw_defaults = defaults, kw_defaults

    @property
    def name(self):
        return getattr(self.node, "name", "lambda")


class Functions(Closure):
    """A tuple, list or dict that holds a function (``return vec, unflatten``, ``{"a": f,
    "b": g}``), known at transform time item by item: it is unpacked, indexed (with a
    constant, or a Chosen item) and passed to the functions s2sad inlines, never built in
    the generated code (where it would go, it is refused as a function is).  keys: a
    dict's, in order."""

    def __init__(self, items, kind, keys=None):
        super().__init__(None, None, (), {})
        self.items, self.kind, self.keys = tuple(items), kind, keys

    @property
    def name(self):
        return "functions"


def refuse_function(low, atom, node):
    """A function (or a tuple of them) where a value is read: refused (s2sad's code holds
    no function values; it inlines the functions it calls)."""
    if isinstance(atom, Closure):
        raise UnsupportedSyntaxError(
            "a function used as a value here", low.loc(node),
            "s2sad inlines the functions it calls: call a function, pass it to a function "
            "of yours, or keep it in a tuple that is unpacked or indexed with a constant.")


class Chosen(Closure):
    """One of several functions, chosen when the code runs: `f = np.tanh if relu else
    np.sin` (joined by a branch), `{"tanh": np.tanh, "sin": np.sin}[mode]` or `fs[i]` (an
    index known only then).  selector is an atom; options[k] runs where it equals keys[k]
    (a branch's join: 0, 1, ...; the last option where none matched), or, for a dict or
    a list (error: KeyError or IndexError), an error where none does.  A call of it
    becomes a branch per option (lower_control.Control.call_chosen); it never leaves a
    loop, and its value is refused as any function's is."""

    def __init__(self, selector, keys, options, error=None):
        super().__init__(None, None, (), {})
        self.selector, self.keys, self.options, self.error = selector, keys, options, error

    @property
    def name(self):
        return "a function chosen at run time"
