"""The functional form (ANF) that every pass after ``anf.py`` works on.

s2sad keeps its own small IR rather than editing gast trees: gast is read by
the front end only (``parse``, ``fence``, ``resolve``, ``anf``), so a gast or
Python upgrade touches those modules and nothing after them.

Grammar (straight-line code; control flow extends ``Stmt``)::

    Function := name, params, body: [Stmt], free: {name}
    Stmt     := Assign(target, Expr)            target is a fresh SSA name
              | Return(Atom)                    exactly one, the last statement
              | Def(Function)                   a nested function (a bprop closure)
    Expr     := Atom
              | Call(callee, [Atom], {kw: Atom}) callee: Primitive or Var (a closure)
              | Pack([Atom], kind)              a tuple or list literal
              | Item(Var, int)                  a constant index into a Pack
    Atom     := Var(name) | Const(value)

Every name is assigned once (SSA).  Names read but never assigned are free:
the function's parameters, globals, closure cells, or (in a nested
function) variables of the enclosing one.  ``validate`` checks these
invariants and the tests run it after each pass.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from .errors import Location, TransformError


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


@dataclass
class Return:
    value: Atom
    src: Optional[Location] = None


@dataclass
class Def:
    func: "Function"
    src: Optional[Location] = None


Stmt = Union[Assign, Return, Def]


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

    @property
    def result(self) -> Atom:
        return self.body[-1].value

    def defined(self) -> set:
        names = set(self.params)
        for s in self.body:
            if isinstance(s, Assign):
                names.add(s.target)
            elif isinstance(s, Def):
                names.add(s.func.name)
        return names


def reads(stmt) -> List[Var]:
    """The variables a statement reads (for Def: the nested function's free names)."""
    if isinstance(stmt, Assign):
        return [a for a in expr_atoms(stmt.value) if isinstance(a, Var)]
    if isinstance(stmt, Return):
        return [stmt.value] if isinstance(stmt.value, Var) else []
    if isinstance(stmt, Def):
        return [Var(n) for n in sorted(free_names(stmt.func))]
    raise TypeError(stmt)


def free_names(func: Function) -> set:
    """Names a function reads that it does not define."""
    defined = set(func.params)
    free = set()
    for s in func.body:
        for v in reads(s):
            if v.name not in defined:
                free.add(v.name)
        if isinstance(s, Assign):
            defined.add(s.target)
        elif isinstance(s, Def):
            defined.add(s.func.name)
    return free


def validate(func: Function, outer: frozenset = frozenset()) -> None:
    """Check the IR invariants; raise TransformError naming the first violation."""
    seen = set(func.params) | set(outer)
    if len(set(func.params)) != len(func.params):
        raise TransformError(f"IR: duplicate parameter in {func.name}")
    if not func.body or not isinstance(func.body[-1], Return):
        raise TransformError(f"IR: {func.name} does not end with a return")
    for i, s in enumerate(func.body):
        if isinstance(s, Return) and i != len(func.body) - 1:
            raise TransformError(f"IR: {func.name} returns before its end")
        if isinstance(s, Assign):
            if s.target in seen and s.target not in outer:
                raise TransformError(f"IR: {s.target} assigned twice in {func.name}")
            if isinstance(s.value, Item) and not isinstance(s.value.value, Var):
                raise TransformError("IR: Item of a non-variable")
            seen.add(s.target)
        elif isinstance(s, Def):
            validate(s.func, frozenset(seen))
            seen.add(s.func.name)
