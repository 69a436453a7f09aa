"""How many of s2sad's scopes are open, in every thread together.

``s2sad.backend("cupy")`` and a call under ``s2sad.jit`` set context variables that
each call of a transform reads.  Reading one takes about 0.05 us, a tenth of a scalar
gradient's call; while no scope is open anywhere (OPEN.count == 0), the fast call
(fastcall.py) skips reading them.  A scope counts itself from before it sets its
variable until after it resets it, so the count is never 0 while one is set.
"""

import threading


class _Open:
    """OPEN.enter() before a scope sets its variable, OPEN.leave() after it resets it."""

    def __init__(self):
        self.count = 0
        self._lock = threading.Lock()

    def enter(self):
        with self._lock:
            self.count += 1

    def leave(self):
        with self._lock:
            self.count -= 1


OPEN = _Open()
