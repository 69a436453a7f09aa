"""How many of s2sad's scopes are open, in every thread together.

``s2sad.backend("cupy")`` and a call under ``s2sad.jit`` set context variables that
each call of a transform reads.  Reading one takes about 0.05 us, a tenth of a scalar
gradient's call; while no scope is open anywhere (OPEN.open is empty), the fast call
(fastcall.py) skips reading them.  A scope counts itself from before it sets its
variable until after it resets it, so OPEN.open is never empty while one is set.
"""


class _Open:
    """OPEN.enter() before a scope sets its variable, OPEN.leave() after it resets it.
    The count is a list's length: append and pop are atomic, with no lock to take."""

    def __init__(self):
        self.open = []

    def enter(self):
        self.open.append(None)

    def leave(self):
        self.open.pop()


OPEN = _Open()
