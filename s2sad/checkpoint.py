"""``s2sad.checkpointed``: mark a `for` loop for binomial checkpointing.

    for t in s2sad.checkpointed(range(T), snapshots=10):
        h = np.tanh(W @ h + x[t])

Run as plain Python, ``checkpointed`` returns its iterable and the loop runs as
written.  In a function s2sad differentiates in reverse mode, the loop's
backward sweep keeps at most ``snapshots`` copies of the loop's state (its
carried variables) instead of a tape of every iteration, and runs iterations
again from them (Griewank & Walther's Revolve schedule, ``s2sad/revolve.py``);
the gradient is the same, to the last bit.  The lowering reads the call where
it is a `for` loop's iterable (``transforms/lowering/lower_control.py``) and refuses it
anywhere else; forward mode runs the loop as an ordinary loop.
"""

from .errors import OptionError


def checkpointed(iterable, snapshots):
    """iterable itself: the loop over it is checkpointed when s2sad transforms it, with
    at most `snapshots` (an int >= 1) copies of its state kept by the backward sweep."""
    if not isinstance(snapshots, int) or isinstance(snapshots, bool) or snapshots < 1:
        raise OptionError(f"checkpointed: snapshots must be an int >= 1, not {snapshots!r}")
    return iterable
