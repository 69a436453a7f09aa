"""The loops of a fused region (fusion.py), as the text of the function Numba compiles.

kernels.fused_region calls these once it knows a region's argument types:
``loop_text`` makes one loop over the elements where its arrays share a shape;
``directions_text`` three, where they are Taylor mode's stacked coefficients (D, *s)
beside the primal's arrays (s).  Each returns the text of ``impl``, whose arrays are
read as ``x_flat_`` and whose elements are ``x_at_``; kernels makes the function.
``numpy_fallback`` runs a region's lines as NumPy code, in object mode, where its
arrays broadcast other than over the directions.  Imported only where Numba is
installed.
"""

import ast

import numpy as np
from numba import objmode, types
from numba.extending import overload

from ..rules.taylor import batch as taylor_batch
from .lowering import checked


def loop_text(inputs, outputs, lines, arrays, plain, returned):
    """The text of impl: the region's lines in one loop where its arrays share a shape,
    else as written (plain).  Its statements of numbers alone divide by true_div (the
    code runs under NumPy's error model: an array's element divided by zero is inf or
    nan, as in NumPy; a number divided by zero raises, as in Python)."""
    carried = set(arrays)                       # the names that hold arrays
    for line in lines:
        node = ast.parse(line).body[0]
        if {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} & carried:
            carried.add(node.targets[0].id)
    ref = arrays[0]
    same = " and ".join(f"{a}.shape == {ref}.shape" for a in arrays[1:]) or "True"
    head = [f"def impl({', '.join(inputs)}):", f"    if {same}:", f"        size_ = {ref}.size"]
    head += [f"        {a}_flat_ = {a}.reshape(size_)" for a in arrays]
    head += [f"        {checked(line)}" for line in lines
             if ast.parse(line).body[0].targets[0].id not in carried]   # numbers: once
    outs = [o for o in outputs if o in carried]
    head += [f"        {o}_out_ = np.empty(size_)" for o in outs]
    loop = ["        for i_ in range(size_):"]
    loop += [f"            {a}_at_ = {a}_flat_[i_]" for a in arrays]
    for line in lines:
        node = ast.parse(line).body[0]
        if node.targets[0].id in carried:
            loop.append("            " + _renamed(node, carried))
    loop += [f"            {o}_out_[i_] = {o}_at_" for o in outs]
    done = ", ".join(f"{o}_out_.reshape({ref}.shape)" if o in carried else o
                     for o in outputs)
    return "\n".join(head + loop + [f"        return ({done},)"] + plain + [returned])


# -- a region over stacked directions -----------------------------------------------------
# Taylor mode's coefficients of D directions are arrays (D, *s) beside the primal's (s):
# a region may read both, through lifted(c, ref) and spread(c, ref) (c itself, where c is
# (D, *s) and ref is of shape s), and sum over the directions (direction_sum).  Its lines
# are then of three kinds, which run as three loops: those of the primal's shape
# ("base"), those of the directions' ("stacked": a loop over each direction, the
# direction sums accumulated there), and those of the primal's shape that read a sum
# ("after").  Numbers ("number") are computed once.
_ORDER = {"number": 0, "base": 1, "stacked": 2}


class _Kinds:
    """The kind of each name and expression of a region's lines; None where the region
    does not take the three loops (a broadcast other than of the directions)."""

    def __init__(self, kind):
        self.kind = dict(kind)
        self.sums = []                  # [(accumulator, the summed expression)]

    def of(self, n):
        if isinstance(n, ast.Constant):
            return "number"
        if isinstance(n, ast.Name):
            return self.kind.get(n.id)
        if isinstance(n, ast.UnaryOp):
            return self.of(n.operand)
        if isinstance(n, ast.BinOp):
            return self.joined(self.of(n.left), self.of(n.right))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            return self.called(n)
        return None

    @staticmethod
    def joined(a, b):
        if a is None or b is None or {a, b} == {"after", "stacked"}:
            return None
        if "after" in (a, b):
            return "after"
        return max(a, b, key=_ORDER.get)

    def called(self, n):
        if n.func.id in ("lifted", "spread"):
            c, ref = (self.kind.get(a.id) for a in n.args)
            return "stacked" if c == "stacked" and ref in ("base", "after") else None
        if n.func.id == "direction_sum" and self.of(n.args[0]) == "stacked":
            self.sums.append((f"sum{len(self.sums)}_", n.args[0]))    # (no name_at_)
            n.sum_name = self.sums[-1][0]
            return "after"
        return None


class _Elements(ast.NodeTransformer):
    """An expression of a loop's body: each array name x as its element x_at_, lifted
    and spread as their array's element, a direction sum as its accumulator's."""

    def __init__(self, arrays):
        self.arrays = arrays

    def visit_Name(self, n):
        return ast.Name(id=f"{n.id}_at_", ctx=n.ctx) if n.id in self.arrays else n

    def visit_Call(self, n):
        if n.func.id == "direction_sum":
            return ast.Name(id=f"{n.sum_name}_at_", ctx=ast.Load())
        return self.visit(n.args[0])


def directions_text(inputs, outputs, lines, kinds):
    """The text of impl: the region's lines in three loops (see _Kinds) where its arrays
    are of the primal's shape s and of (D, *s), checked at each call; else (arrays that
    broadcast otherwise, (N, 1) against (N, 3) say) the lines as NumPy runs them, in
    object mode (numpy_fallback; Numba's own broadcasting of arrays of two ranks
    takes seconds to compile).  None where its types do not fit."""
    low = min(t.ndim for t in kinds if isinstance(t, types.Array))
    kind = {name: "number" if not isinstance(t, types.Array) else
            "base" if t.ndim == low else "stacked" for name, t in zip(inputs, kinds)}
    if low < 1 or "stacked" not in kind.values():
        return None
    k = _Kinds(kind)
    nodes = [ast.parse(line).body[0] for line in lines]
    for node in nodes:
        k.kind[node.targets[0].id] = k.of(node.value)
        if k.kind[node.targets[0].id] is None:
            return None
    loops = _DirectionLoops(inputs, outputs, nodes, k)
    return "\n".join(loops.head() + loops.body() + loops.returned() +
                     loops.fallback(numpy_text(inputs, outputs, lines)))


def numpy_text(inputs, outputs, lines):
    """The text of region(inputs): the lines as NumPy code, each output C-contiguous."""
    returned = ", ".join(f"np.ascontiguousarray({o})" for o in outputs)
    return "\n".join([f"def region({', '.join(inputs)}):"] + [f"    {line}" for line in lines]
                     + [f"    return ({returned},)"])


class _DirectionLoops:
    """The text of a region's three loops over s and (D, *s), its kinds known (_Kinds):
    each input x read as x_flat_, each value kept for a later loop or returned in
    x_kept_, each element x_at_."""

    def __init__(self, inputs, outputs, nodes, k):
        self.inputs, self.nodes, self.k, self.kind = inputs, nodes, k, k.kind
        self.arrays = {name for name, v in k.kind.items() if v != "number"}
        self.ref = next(name for name in inputs if k.kind[name] == "stacked")
        self.phases = {p: [n for n in nodes if k.kind[n.targets[0].id] == p]
                       for p in ("base", "stacked", "after")}
        self.read = {p: _names(n.value for n in self.phases[p]) for p in self.phases}
        self.read["stacked"] |= _names(e for _, e in k.sums)
        alias = {}                  # t = lifted(c, ref) or spread(c, ref): t is c
        for n in nodes:
            if isinstance(n.value, ast.Call) and n.value.func.id in ("lifted", "spread"):
                alias[n.targets[0].id] = alias.get(n.value.args[0].id, n.value.args[0].id)
        self.given = [alias.get(o, o) for o in outputs]     # (an alias returns its array)
        self.kept = [n.targets[0].id for n in self.phases["base"] if n.targets[0].id in
                     self.read["stacked"] | self.read["after"] | set(self.given)]
        self.outs = [o for o in dict.fromkeys(self.given) if o not in inputs and
                     self.kind[o] in ("stacked", "after")]

    def head(self):
        ref, kind = self.ref, self.kind
        same = [f"{a}.shape == {ref}.shape" for a in self.inputs if kind[a] == "stacked"
                and a != ref] + [f"{a}.shape == {ref}.shape[1:]" for a in self.inputs
                                 if kind[a] == "base"]
        head = [f"def impl({', '.join(self.inputs)}):", f"    if {' and '.join(same)}:",
                f"        d_ = {ref}.shape[0]", "        size_ = 1",
                f"        for n_ in {ref}.shape[1:]:", "            size_ *= n_"]
        size = {"stacked": f"{ref}.size", "base": "size_", "after": "size_"}
        head += [f"        {a}_flat_ = {a}.reshape({size[kind[a]]})" for a in self.inputs
                 if a in self.arrays]
        head += [f"        {checked(ast.unparse(n))}" for n in self.nodes
                 if kind[n.targets[0].id] == "number"]
        head += [f"        {o}_kept_ = np.empty(size_)" for o in self.kept]
        head += [f"        {o}_kept_ = np.empty({size[kind[o]]})" for o in self.outs]
        return head + [f"        {s}_kept_ = np.zeros(size_)" for s, _ in self.k.sums]

    def body(self):
        text = []
        if self.phases["base"]:
            text += ["        for i_ in range(size_):"] + self.loop("base", "i_", " " * 12)
        text += ["        for e_ in range(d_):", "            o_ = e_ * size_",
                 "            for i_ in range(size_):"] + self.loop("stacked", "o_ + i_",
                                                                    " " * 16)
        if self.phases["after"]:
            text += ["        for i_ in range(size_):"] + self.loop("after", "i_", " " * 12)
        return text

    def loop(self, phase, at, indent):
        """The body of the loop of a phase: at, the index of a stacked element."""
        elements, read = _Elements(self.arrays), self.read[phase]
        body = [f"{a}_at_ = {a}_flat_[{at if self.kind[a] == 'stacked' else 'i_'}]"
                for a in self.inputs if a in self.arrays and a in read]
        if phase != "base":
            body += [f"{a}_at_ = {a}_kept_[i_]" for a in self.kept if a in read]
        if phase == "after":
            body += [f"{s}_at_ = {s}_kept_[i_]" for s, _ in self.k.sums]
        body += [ast.unparse(elements.visit(n)) for n in self.phases[phase]]
        if phase == "stacked":
            body += [f"{s}_kept_[i_] += {ast.unparse(elements.visit(e))}"
                     for s, e in self.k.sums]
        stored = self.kept if phase == "base" else [o for o in self.outs
                                                     if self.kind[o] == phase]
        body += [f"{o}_kept_[{at}] = {o}_at_" for o in stored]
        return [indent + line for line in body]

    def fallback(self, text):
        """The line that runs the region as NumPy code (numpy_fallback: in object
        mode), given an array of each output's rank (where one is a number, none: the
        call stops, and runs as NumPy code)."""
        if any(self.kind[o] == "number" for o in self.given):
            return ["    raise ValueError(NOT_COMPILED)"]
        like = ", ".join(self.ref if self.kind[g] == "stacked" else f"{self.ref}[0]"
                         for g in self.given)
        return [f"    return numpy_fallback({text!r}, ({', '.join(self.inputs)},), "
                f"({like},))"]

    def returned(self):
        ref, kind = self.ref, self.kind
        done = ", ".join(o if o in self.inputs or kind[o] == "number" else
                         f"{o}_kept_.reshape({ref}.shape)" if kind[o] == "stacked" else
                         f"{o}_kept_.reshape({ref}.shape[1:])" for o in self.given)
        return [f"        return ({done},)"]


def _names(expressions):
    """The names the expressions read, but not inside a direction sum's argument (read
    in the stacked loop) nor as the function called."""
    out = set()

    def visit(n):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Call):
            if n.func.id != "direction_sum":
                for a in n.args:
                    visit(a)
        else:
            for child in ast.iter_child_nodes(n):
                visit(child)
    for e in expressions:
        visit(e)
    return out


def _renamed(node, carried):
    """The statement with each array name x as its element x_at_."""

    class Rename(ast.NodeTransformer):
        def visit_Name(self, n):
            return ast.Name(id=f"{n.id}_at_", ctx=n.ctx) if n.id in carried else n
    return ast.unparse(Rename().visit(node))


def numpy_region(text, *args):
    """A region's lines run as NumPy code (in object mode, directions_text): text, the
    function numpy_text writes, called with args; made once per text.  (Called by its
    name from compiled code, so that the machine code cached on disk finds it again.)"""
    function = _NUMPY_REGIONS.get(text)
    if function is None:
        env = {"np": np,
               "lifted": lambda c, ref: np.reshape(c, taylor_batch.lift_shape(c, ref)),
               "spread": lambda c, ref: np.broadcast_to(c, taylor_batch.full_shape(c, ref)),
               "direction_sum": lambda e: np.sum(e, axis=0)}
        exec(compile(text, "<s2sad region as NumPy code>", "exec"), env)
        function = _NUMPY_REGIONS[text] = env["region"]
    return function(*args)


_NUMPY_REGIONS = {}


def numpy_fallback(text, args, like):
    """numpy_region(text, *args) from compiled code, in object mode: its results are
    C-contiguous float64 arrays of the ranks of like's arrays."""


@overload(numpy_fallback)
def _numpy_fallback(text, args, like):
    if not isinstance(like, types.BaseTuple) or not all(
            isinstance(t, types.Array) for t in like.types):
        return None
    results = types.Tuple([types.Array(types.float64, t.ndim, "C") for t in like.types])

    def impl(text, args, like):     # (here, not in a generated text: Numba's disk cache
        with objmode(out=results):  # finds its object-mode environment again)
            out = numpy_region(text, *args)
        return out
    return impl
