"""The passes, one package per stage; s2sad/pipeline.py alone runs them, in this order:

frontend (parse → generators → fence → resolve) → lowering (lower, the in-place check)
→ optimizer (the primal) → reverse_mode, forward_mode or taylor_mode → optimizer →
printer (codegen).  names.py and inline.py serve several stages.  See
docs/architecture.md.
"""
