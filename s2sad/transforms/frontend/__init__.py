"""The front end: a Python function's source, read and resolved.

parse (source → gast tree and its world) → generators (generator functions it calls →
lists) → fence (what s2sad refuses, at the user's line) → resolve (each name and call:
a primitive, a user function, a constant; resolve_values rewrites function values,
records, objects (resolve_built: those built inside; resolve_arguments: those passed,
by the call's classes; resolve_members: functions in attributes, dataclasses.replace),
ODE solves; scopes: the names each scope binds).  pipeline.lower_function runs them in this order.
"""
