"""Open bugs the differential fuzzer found, pinned as strict xfails (minimized programs).

None is open today.  A finding that cannot be fixed at once goes here as a strict xfail
with its minimized program and the precise reason; when it is fixed its test passes, the
strict xfail fails, and the mark must go (the program kept as a regression test).
Findings 025, 026, seed 5's program 1224 and seed 34's program 71 were fixed:
tests/test_nested_findings.py.
"""
