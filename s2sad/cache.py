"""The cache of generated code: one artifact per function, transform and call spec.

An entry lives while its function does (its key holds the function weakly) and is used
while its guards hold (a global or a closure cell the code was made for is still the same
object).  Everything here runs under LOCK: transforms are made once, even from threads.
"""

import threading
import weakref
from typing import Any, Dict

from . import failures

ARTIFACTS: Dict[Any, Any] = {}      # (function, kind, wrt, with_value, spec) -> Artifact

LOCK = threading.RLock()


class Artifact:
    """A transform's result: the generated module and what it assumed."""

    def __init__(self, module, guards):
        self.module = module
        seen, self.guards = set(), []
        for g in guards:                # each checked at every call: once is enough
            key = (g[0], id(g[1]), g[2], id(g[3]))
            if key not in seen:
                seen.add(key)
                self.guards.append(g)
        self.functions = {}

    def valid(self) -> bool:
        for kind, container, name, obj in self.guards:
            if kind == "cell":
                try:
                    if container.cell_contents is not obj:
                        return False
                except ValueError:
                    return False
            elif kind in ("items", "attr", "item"):
                if not guard_holds(kind, container, name, obj):
                    return False
            elif container.get(name, _MISSING) is not obj:
                return False
        return True

    def function(self, xp):
        f = self.functions.get(xp.__name__)
        if f is None:
            f = self.module.function(xp)
            self.functions[xp.__name__] = f
        return f


_MISSING = object()


def guard_holds(kind, container, name, obj) -> bool:
    """An "items" guard: the list, tuple or dict container still holds the objects obj
    (a loop over it was unrolled); an "attr" guard: container.name is still obj; an "item"
    guard: container[name] is still obj."""
    if kind == "attr":
        return getattr(container, name, _MISSING) is obj
    if kind == "item":
        try:
            return container[name] is obj
        except (KeyError, IndexError, TypeError):
            return False
    items = list(container.values()) if isinstance(container, dict) else container
    return len(items) == len(obj) and all(a is b for a, b in zip(items, obj))


# A cache holds a function's generated code only while the function lives: its key is a
# weak reference, and when the function is collected the reference's callback queues it in
# _dead; the next cache access drops its entries (not the callback itself: a collection can
# run in the middle of a dict operation).  The generated modules then die with their last
# user (generated.MODULES holds them weakly), and their linecache text with them.
_dead: list = []
_entries: Dict[Any, list] = {}      # weak reference -> [(cache, key)] stored under it


def key_of(fn):
    try:
        return weakref.ref(fn, _dead.append)
    except TypeError:
        return fn


def release_collected():
    """Drop the cache entries of functions that were collected (lock held, or at rest)."""
    while _dead:
        try:
            stored = _entries.pop(_dead.pop(), ())
        except TypeError:           # a reference that died before anything hashed it
            stored = ()
        for c, k in stored:
            c.pop(k, None)


def store(cache, key, value):
    """cache[key] = value, remembered under the key's weak reference (lock held)."""
    release_collected()
    cache[key] = value
    ref = key[0] if isinstance(key, tuple) else key
    if isinstance(ref, weakref.ref):
        _entries.setdefault(ref, []).append((cache, key))


def cached(cache, fn, make):
    """make(fn) -> (artifact, value), once per function while its guards hold."""
    key = key_of(fn)
    with LOCK:
        hit = cache.get(key)
        if hit is not None and hit[0].valid():
            return hit[1]
        with failures.transforming(fn):
            hit = make(fn)
        store(cache, key, hit)
        return hit[1]
