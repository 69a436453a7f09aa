"""The binomial checkpointing schedule (Griewank & Walther's Revolve) of a loop's reversal.

Pure Python on integers, called by the code the K-transform writes for a loop
marked ``s2sad.checkpointed``: ``schedule(T, s)`` is the list of actions that
reverses T iterations keeping at most s copies (snapshots) of the loop's state.

An action is a tuple ``(kind, position, count)``::

    (ADVANCE, a, n)   the state is at iteration a: run n iterations, untaped
    (PUSH, 0, 0)      keep a snapshot of the state (snapshots are a stack)
    (PEEK, 0, 0)      the state := the snapshot on top of the stack
    (POP, 0, 0)       forget the snapshot on top
    (STEP, a, 0)      the state is at iteration a: run it, then its adjoint at once

Snapshots are used last in, first out, so a stack (a tape of the generated code)
holds them.  The split of a segment follows the binomial rule: with c free
snapshots and r the smallest repetition number with beta(c, r) = C(c + r, c) >= L
for a segment of L iterations, the first part is at most beta(c, r - 1) iterations
long (reversed later with the same c snapshots) and the rest at most beta(c - 1, r)
(reversed now with one snapshot fewer), so no iteration runs more than r + 1 times
forward (Griewank & Walther, "Algorithm 799: revolve", ACM TOMS 26(1), 2000).
"""

from math import comb

ADVANCE, PUSH, PEEK, POP, STEP = 0, 1, 2, 3, 4


def _reps(length, snaps):
    """The repetition number: the smallest r with C(snaps + r, snaps) >= length."""
    r = 0
    while comb(snaps + r, snaps) < length:
        r += 1
    return r


def cost(length, free):
    """The fewest iterations run forward to reverse `length` of them from a held state
    with `free` more snapshots: (r + 1) L - C(s + r, r - 1), s = free + 1 (Griewank)."""
    s = free + 1
    r = _reps(length, s)
    return (r + 1) * length - comb(s + r, r - 1) if r > 0 else length


def _split(length, free):
    """The length of the first part of a segment of length > 1 with free >= 1 snapshots:
    the one that costs least, among those whose parts need no more repetitions."""
    s = free + 1
    r = _reps(length, s)
    lo = max(1, length - comb(s - 1 + r, s - 1))
    hi = min(length - 1, comb(s + r - 1, s))
    if lo > hi:
        lo, hi = 1, length - 1
    return min(range(lo, hi + 1), key=lambda m: m + cost(length - m, free - 1) + cost(m, free))


def schedule(n, snapshots):
    """The actions that reverse n iterations from the state before the first one, with at
    most `snapshots` snapshots (that one included): a tuple of (kind, position, count)."""
    if not isinstance(snapshots, int) or isinstance(snapshots, bool) or snapshots < 1:
        raise ValueError(f"checkpointed: snapshots must be an int >= 1, not {snapshots!r}")
    out = []
    if n <= 0:
        return ()
    out.append((PUSH, 0, 0))
    # work items, the next one last: ("rev", a, b, free) with the state at a and a's
    # snapshot on top, or an action to append
    todo = [(POP, 0, 0), ("rev", 0, n, snapshots - 1)]
    while todo:
        item = todo.pop()
        if item[0] != "rev":
            out.append(item)
            continue
        _, a, b, free = item
        if b - a == 1:
            out.append((STEP, a, 0))
        elif free == 0:
            # no snapshot left: recompute each iteration from a, last one first
            for j in range(b - 1, a - 1, -1):
                if j > a:
                    out.append((ADVANCE, a, j - a))
                out.append((STEP, j, 0))
                if j > a:
                    out.append((PEEK, 0, 0))
        else:
            m = a + _split(b - a, free)
            todo += [("rev", a, m, free), (PEEK, 0, 0), (POP, 0, 0), ("rev", m, b, free - 1),
                     (PUSH, 0, 0), (ADVANCE, a, m - a)]
    return tuple(out)


def forward_steps(actions) -> int:
    """How many iterations a schedule runs forward (advances and steps), for measuring."""
    return sum(n if kind == ADVANCE else 1 for kind, _, n in actions if kind in (ADVANCE, STEP))
