"""s2sad's differential fuzzer: random NumPy programs, derivatives against finite differences.

``gen`` writes random, mostly well-typed programs from a weighted grammar
(``exprs`` holds its expression templates); ``kinks`` makes an instrumented
copy of a program that measures how far its inputs are from every switching
point (comparisons, ``%``, ``abs``, ``max``, ...), so inputs are drawn away
from kinks; ``oracle`` checks ``grad_all``, ``vjp``, ``jvp`` and grad of grad
against central finite differences at two steps and classifies the outcome
(ok, refused, wrong, crash, invalid); ``shrink`` minimizes a failing program;
``repro`` writes a runnable reproducer per distinct failure; ``campaign``
runs many programs and summarises.  ``sparse`` writes straight-line programs for sparse
Jacobians and Hessians and compares their compressed passes with the dense ones.  Command
lines::

    python -m s2sad.fuzz --n 5000 --seed 0 --order 2 --shrink --findings DIR
    python -m s2sad.fuzz.sparse --n 500 --seed 0
"""

from .campaign import Summary, recheck, run_campaign
from .gen import GenConfig, Program, generate
from .oracle import Outcome, run_program
from .shrink import shrink

__all__ = ["GenConfig", "Program", "generate", "run_program", "Outcome", "shrink",
           "run_campaign", "recheck", "Summary"]
