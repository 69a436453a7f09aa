"""Rows for s2sad/rules/python/containers_kind.py: same_kind(x, items), what `type(x)(items)`
becomes (a list or a tuple of the kind of x), linear in items, checked at orders 1 and 2.
The kind is the first argument, x; a sequence of strings has nothing to differentiate."""

from rule_table import Row
from s2sad.rules.python.containers_kind import same_kind


def _items(rng):
    return [rng.standard_normal(3), rng.standard_normal(()), rng.standard_normal((2,))]


ROWS = [
    Row(same_kind, make=lambda rng: ((["kind"], _items(rng)), {}), nargs=2,
        id="same_kind-list"),
    Row(same_kind, make=lambda rng: ((("kind",), tuple(_items(rng))), {}), nargs=2,
        id="same_kind-tuple"),
    # a tuple of a list's items and a list of a tuple's, read back item by item
    Row(lambda a, b, c: same_kind((), [a * 2.0, b])[0] * c + same_kind([], (c, a))[1],
        make=lambda rng: ((rng.standard_normal(3), rng.standard_normal(3),
                           rng.standard_normal(())), {}),
        nargs=3, also=(same_kind,), id="same_kind-items-read"),
]
