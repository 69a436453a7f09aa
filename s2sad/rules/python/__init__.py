"""Rules of Python itself: builtins on numbers and containers, objects and strings.

    builtins          Python's builtins on numbers, math.*, and the helpers the lowering
                      of list and dict methods calls
    objects           attributes, methods, f-strings and %-formatting, exceptions
    draws             the shape of a random draw rewritten as its standard draw, and the
                      refusal of the others where a derivative flows into them
    containers_kind   type(x)(items): a list or a tuple of the same kind as x
"""

from . import builtins, objects, containers_kind, draws  # noqa: F401
