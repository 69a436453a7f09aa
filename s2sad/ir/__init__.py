"""The functional form: what every pass after the lowering reads and writes.

    nodes.py      the node classes (declared fields only) and their traversals:
                  walk, targets, reads, free_names, expr_atoms
    validator.py  validate: the invariants (SSA, one return at the end), checked
                  after each pass
    analysis.py   the analyses that reverse and forward mode share: activity
                  (varied, useful, active), containers, may-be-None, substitution

``from s2sad import ir`` gives the nodes and ``ir.validate``; the analyses are
``s2sad.ir.analysis``.
"""

from .nodes import (Assign, Atom, Call, Const, Def, Expr, FnRef, Function, If, Item, Loop,
                    Pack, Return, Stmt, Var, expr_atoms, free_names, reads, targets, walk)
from .validator import validate

__all__ = ["Assign", "Atom", "Call", "Const", "Def", "Expr", "FnRef", "Function", "If", "Item",
           "Loop", "Pack", "Return", "Stmt", "Var", "expr_atoms", "free_names", "reads",
           "targets", "validate", "walk"]
