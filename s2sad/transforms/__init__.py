"""The passes, one concern per module; s2sad/pipeline.py alone runs them, in this order:

parse → generators → fence → resolve (resolve_values: function values, records, objects in
resolve_objects, lifted lambdas in resolve_lifted, scipy.integrate's solvers in
resolve_integrate) → lower (lower, lower_control; the in-place check: inplace)
→ reverse (reverse, reverse_control) or forward → optimize (optimize, optimize_cse,
optimize_dce, optimize_flow) → codegen (codegen, codegen_expr, codegen_names,
codegen_stmts).  See docs/architecture.md.
"""
