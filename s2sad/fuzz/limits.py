"""A time limit on one fuzz program (SIGALRM, in the main thread)."""

import signal
import threading
from contextlib import contextmanager


class FuzzTimeout(Exception):
    """A program ran past its time limit."""


@contextmanager
def time_limit(seconds):
    """Raise FuzzTimeout after `seconds` (main thread only; a no-op elsewhere)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise FuzzTimeout(f"ran past {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
