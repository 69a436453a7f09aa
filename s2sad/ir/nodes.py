"""The node classes of the functional form (ANF) that every pass after the lowering works on.

s2sad keeps its own small IR rather than editing gast trees: gast is read by
the front end only (parsing, the fence, resolution and the lowering), so a
gast or Python upgrade touches those modules and nothing after them.

Grammar (straight-line code; control flow extends ``Stmt``)::

    Function := name, params, body: [Stmt], free: {name}
    Stmt     := Assign(target, Expr)            target is a fresh SSA name
              | Return(Atom)                    exactly one, the last statement
              | Def(Function)                   a nested function (a bprop closure)
              | If(test: Atom, body: [Stmt], orelse: [Stmt],
                   outs: [(target, Atom from body, Atom from orelse)])
                                                the outs are the branches' results (phi)
              | Loop(carried: [(name, init Atom, next Atom)], body: [Stmt],
                     iter: Atom, index: name          a `for` over an iterable, or
                     cond: [Stmt], test: Atom         a `while`: cond runs before each iteration,
                     stop: Atom)                      break after an iteration where stop holds
                                                carried names hold the iteration's start value
                                                in the body and the final value after the loop
    Expr     := Atom
              | Call(callee, [Atom], {kw: Atom}) callee: Primitive, Var (a local function),
                                                or FnRef (a recursive function, called for real)
              | Pack([Atom], kind)              a tuple or list literal
              | Item(Var, int)                  a constant index into a Pack
    Atom     := Var(name) | Const(value)

Every name is assigned once (SSA).  Names read but never assigned are free:
the function's parameters, globals, closure cells, or (in a nested
function) variables of the enclosing one.  ``validate`` checks these
invariants (``validator.py``) and the driver runs it after each pass.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from ..errors import Location


@dataclass(frozen=True)
class Var:
    name: str

    def __repr__(self):
        return self.name


@dataclass(frozen=True)
class Const:
    value: Any

    def __repr__(self):
        return repr(self.value)


Atom = Union[Var, Const]


@dataclass(frozen=True)
class FnRef:
    """A call target that is a Python function called for real, not inlined: a
    recursive user function, or the fwd/bwd pair s2sad generated for one."""
    fn: Any

    @property
    def name(self):
        return getattr(self.fn, "__name__", "f")


@dataclass(frozen=True)
class Call:
    callee: Any                   # a registry.Primitive, or Var naming a local closure
    args: Tuple[Atom, ...]
    kwargs: Tuple[Tuple[str, Atom], ...] = ()

    def atoms(self):
        out = list(self.args) + [a for _, a in self.kwargs]
        if isinstance(self.callee, Var):
            out.append(self.callee)
        return out


@dataclass(frozen=True)
class Pack:
    items: Tuple[Atom, ...]
    kind: str = "tuple"           # "tuple" or "list"

    def atoms(self):
        return list(self.items)


@dataclass(frozen=True)
class Item:
    value: Var
    index: int

    def atoms(self):
        return [self.value]


Expr = Union[Atom, Call, Pack, Item]


def expr_atoms(expr) -> List[Atom]:
    if isinstance(expr, (Var, Const)):
        return [expr]
    return expr.atoms()


@dataclass
class Assign:
    target: str
    value: Any                    # Expr
    src: Optional[Location] = None
    bwd: bool = False             # part of a backward pass: codegen prints "# grad of: <src>"
    deriv: bool = False           # a tangent's formula (forward mode): derivative code too


@dataclass
class Return:
    value: Atom
    src: Optional[Location] = None


@dataclass
class Def:
    func: "Function"
    src: Optional[Location] = None


@dataclass
class If:
    test: Atom
    body: List[Any]
    orelse: List[Any]
    # (target, value at the end of body, value at the end of orelse): a phi per name
    outs: List[Tuple[str, Atom, Atom]] = field(default_factory=list)
    src: Optional[Location] = None

    def blocks(self):
        return (self.body, self.orelse)


@dataclass
class Loop:
    """A loop that is never unrolled: `for index in iter` or `while test`.

    Each carried name is set to init before the first iteration and to next
    at the end of each one; in the body it holds the value at the start of
    the iteration, after the loop its final value.
    """
    carried: List[Tuple[str, Atom, Atom]]
    body: List[Any]
    iter: Optional[Atom] = None           # for: what to iterate over
    index: Optional[str] = None           # for: the name bound to each element
    cond: List[Any] = field(default_factory=list)   # while: computes test
    test: Optional[Atom] = None
    stop: Optional[Atom] = None           # break after this iteration when it holds
    src: Optional[Location] = None
    # s2sad.checkpointed(iter, snapshots=n): the snapshot count; reverse mode replaces the
    # tape by binomial checkpointing (transforms/reverse_mode/reverse_checkpoint.py)
    checkpoint: Optional[Atom] = None

    def blocks(self):
        return (self.cond, self.body)


Stmt = Union[Assign, Return, Def, If, Loop]


def targets(stmt) -> List[str]:
    """The names a statement defines where it stands (an If: its outs)."""
    if isinstance(stmt, Assign):
        return [stmt.target]
    if isinstance(stmt, Def):
        return [stmt.func.name]
    if isinstance(stmt, If):
        return [t for t, _, _ in stmt.outs]
    if isinstance(stmt, Loop):
        return [c for c, _, _ in stmt.carried] + ([stmt.index] if stmt.index else [])
    return []


def walk(stmts):
    """Every statement in stmts and in the blocks of its Ifs (not into nested functions)."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk(s.body)
            yield from walk(s.orelse)
        elif isinstance(s, Loop):
            yield from walk(s.cond)
            yield from walk(s.body)


@dataclass
class Function:
    name: str
    params: List[str]
    body: List[Any]
    src: Optional[Location] = None
    # names chosen by the compiler (never the user's), which codegen may fold
    temps: set = field(default_factory=set)
    # for each SSA name, the user-facing variable it is a version of
    base: Dict[str, str] = field(default_factory=dict)
    doc: str = ""
    # the parameters' default values (codegen writes them), and the keyword-only ones
    defaults: Dict[str, Any] = field(default_factory=dict)
    kwonly: List[str] = field(default_factory=list)
    # names that hold tuples: their length, None where it is not known
    tuples: Dict[str, Optional[int]] = field(default_factory=dict)
    # a derivative's name -> the primal whose shape it has (for optimize)
    shape_of: Dict[str, str] = field(default_factory=dict)
    # parameters passed as containers (tuples, lists, dicts of arrays)
    containers: set = field(default_factory=set)

    @property
    def result(self) -> Atom:
        return self.body[-1].value

    def defined(self) -> set:
        names = set(self.params)
        for s in walk(self.body):
            names.update(targets(s))
            if isinstance(s, If):
                for b in s.blocks():
                    for t in b:
                        names.update(targets(t))
        return names


def reads(stmt) -> List[Var]:
    """The variables a statement reads from outside it.

    For Def: the nested function's free names; for If: its test, the names
    its blocks read but do not define, and its outs' atoms.
    """
    if isinstance(stmt, Assign):
        return [a for a in expr_atoms(stmt.value) if isinstance(a, Var)]
    if isinstance(stmt, Return):
        return [stmt.value] if isinstance(stmt.value, Var) else []
    if isinstance(stmt, Def):
        return [Var(n) for n in sorted(free_names(stmt.func))]
    if isinstance(stmt, If):
        out = [stmt.test] if isinstance(stmt.test, Var) else []
        for block, k in ((stmt.body, 1), (stmt.orelse, 2)):
            inner = set()
            for s in block:
                out.extend(v for v in reads(s) if v.name not in inner)
                inner.update(targets(s))
            out.extend(o[k] for o in stmt.outs
                       if isinstance(o[k], Var) and o[k].name not in inner)
        return out
    if isinstance(stmt, Loop):
        inner = set(targets(stmt))
        out = [a for a in [stmt.iter, stmt.checkpoint] + [c[1] for c in stmt.carried]
               if isinstance(a, Var)]
        for block in (stmt.cond, stmt.body):
            for s in block:
                out.extend(v for v in reads(s) if v.name not in inner)
                inner.update(targets(s))
        tail = [c[2] for c in stmt.carried] + [stmt.test, stmt.stop]
        out.extend(a for a in tail if isinstance(a, Var) and a.name not in inner)
        return out
    raise TypeError(stmt)


def free_names(func: Function) -> set:
    """Names a function reads that it does not define."""
    defined = set(func.params)
    free = set()
    for s in func.body:
        for v in reads(s):
            if v.name not in defined:
                free.add(v.name)
        defined.update(targets(s))
    return free
