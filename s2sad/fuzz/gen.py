"""The program generator: random, mostly well-typed NumPy programs for s2sad.

``generate(seed, index, config)`` builds one program from a ``random.Random``
seeded by ``(seed, index)``, so every program of a campaign can be rebuilt
alone.  A program is a module: ``import math``, ``import numpy as np``, zero
to three module-level helpers (plain functions, closure factories, functions
taking a function, recursive functions) and ``f``, whose parameters are typed
(``x`` a (3,) array, ``y`` a float, ``M`` a (2, 3) array, ``n`` an int count,
``T`` a tuple, ``L`` a list, ``D`` a dict).  Statements come from a weighted
grammar (assignments, ``if``/``elif``/``else``, ``for`` over ranges, arrays,
lists, ``enumerate``, ``zip``, ``while`` with ``break``/``continue``, early
``return``, nested ``def``/``lambda``, item assignment into arrays, lists and
dicts, ...); expressions come from :mod:`s2sad.fuzz.exprs`.  Every construct
used is recorded in ``Program.constructs``; ``GenConfig.exclude`` keeps
named constructs out (``REFUSED_TODAY`` names those s2sad refuses today).
Statements live in mixins: loops in :mod:`.gen_loops`, local functions and
helpers in :mod:`.gen_funcs`, containers and item assignment in
:mod:`.gen_data`, views, aliases and shared state in :mod:`.gen_alias`, and
the Python of published code (random draws, objects and methods, strings,
``map``/``zip(*)``/``partial``/``reduce``, functions in containers, ``f`` a
bound method) in :mod:`.gen_real`, weighted by ``GenConfig.real_code``.
``draw_inputs`` draws arguments of the parameter types.
"""

import random
from dataclasses import dataclass, field

import numpy as np

from .exprs import ExprGen, Scope
from .gen_alias import AliasStatements
from .gen_data import DataStatements
from .gen_funcs import FunctionStatements
from .gen_loops import LoopStatements
from .gen_numpy_calls import CALL_STATEMENTS, HEAVY_STATEMENTS, NumpyCallStatements
from .gen_real import BOUND_METHOD, REAL_REQUIRES, REAL_STATEMENTS, RealCodeStatements

PARAMS = [("x", "v", 1.0), ("y", "f", 0.8), ("M", "m", 0.45), ("n", "i", 0.6),
          ("w", "u", 0.15), ("T", "T", 0.15), ("L", "L", 0.2), ("D", "D", 0.15)]
READERS = {"T": [("f", "{p}[0]"), ("v", "{p}[1]")],
           "L": [("v", "{p}[0]"), ("v", "{p}[1]"), ("m", "np.stack({p})"),
                 ("v", "({p}[-1] * 0.5)")],
           "D": [("f", "{p}['a']"), ("v", "{p}['b']")]}
RETURNS = [(8, "f"), (3, "v"), (1, "m"), (2, "tuple"), (1, "list"), (1, "dict"), (1, "nested"),
           (1, "int_tuple")]
# module-level constants that f reads (global arrays are read when the code runs)
GLOBALS = "G = np.array([0.5, -1.0, 2.0])\nS = 0.7\n\n\n"
STATEMENTS = [  # (weight, construct, method)
    (12, "assign", "s_assign"), (3, "augassign", "s_augassign"), (5, "if", "s_if"),
    (2, "if", "s_if_update"), (4, "for_range", "s_for_range"), (2, "for_array", "s_for_array"),
    (2, "for_list", "s_for_list"), (2, "enumerate", "s_enumerate"), (2, "zip", "s_zip"),
    (1, "enum_zip", "s_enum_zip"), (3, "while", "s_while"), (2, "def", "s_def"),
    (2, "lambda", "s_lambda"), (2, "setitem_array", "s_setitem_array"),
    (1, "setitem_mask", "s_setitem_mask"), (2, "setitem_list", "s_list"),
    (2, "setitem_dict", "s_dict"), (1, "unpack", "s_tuple"), (2, "early_return", "s_return"),
    (2, "closure_factory", "s_factory"), (1, "append", "s_append"),
    (1, "while_float", "s_while_float"), (2, "setitem_loop", "s_setitem_loop"),
    (2, "late_binding", "s_late_closure"), (1, "default_arg", "s_def_default"),
    (2, "helper_tuple", "s_call_tuple"), (1, "setitem_fancy", "s_setitem_fancy"),
    (2, "dict_iter", "s_dict_iter"), (1, "param_rebind", "s_param_rebind"),
    (2, "kwargs", "s_call_kwargs"), (2, "setitem_slice", "s_setitem_slice"),
    (1, "setitem_mask", "s_setitem_mask_array"), (2, "alias_view", "s_view_alias"),
    (1, "alias_container", "s_container_alias"), (1, "alias_row", "s_row_loop_write"),
    (2, "swap", "s_swap"), (1, "flag", "s_flag"), (1, "closure_append", "s_closure_append"),
    (1, "listcomp_arrays", "s_listcomp_arrays"), (1, "broadcast3d", "s_broadcast3d"),
    (1, "shared_list", "s_shared_list"), (2, "view_rebind", "s_view_rebind"),
    (2, "int_identity", "s_int_identity"), (2, "matvec_loop", "s_matvec_loop"),
]
# constructs s2sad refuses today (none: np.sort, floor, np.array of scalars, cumprod, roll,
# diag, grad(h)(x) in one expression and a closure appending to a captured list were refused
# once and are differentiated now); `--skip-refused` leaves them out so a campaign's time
# goes to programs s2sad differentiates
REFUSED_TODAY: frozenset = frozenset()
# constructs a statement is also made of: excluding one excludes the statement
REQUIRES = {"s_while_float": "while", "s_late_closure": "lambda", "s_def_default": "def",
            "s_setitem_loop": "for_range", "s_matvec_loop": "for_range",
            "s_closure_append": "def", "s_swap": "for_range", **REAL_REQUIRES}
LOOPS = {"s_for_range", "s_for_array", "s_for_list", "s_enumerate", "s_zip", "s_enum_zip",
         "s_while", "s_while_float", "s_setitem_loop", "s_row_loop_write", "s_swap", "s_flag",
         "s_closure_append", "s_matvec_loop"}


@dataclass
class GenConfig:
    """What the generator may produce: sizes, and constructs to leave out."""
    exclude: frozenset = frozenset()
    max_depth: int = 3          # expression depth
    max_nest: int = 2           # nesting of compound statements
    stmts: tuple = (3, 7)       # statements in f's body
    helpers: tuple = (0, 2)     # module-level helpers
    real_code: float = 1.0      # weight of gen_real's statements (0: none; 3: about half)


@dataclass
class Program:
    source: str
    params: list                # [(name, type)]
    constructs: set = field(default_factory=set)
    seed: int = 0
    index: int = 0
    fname: str = "f"


class Gen(LoopStatements, FunctionStatements, DataStatements, AliasStatements,
          RealCodeStatements, NumpyCallStatements):
    """Programs, blocks and the plain statements; loops, functions and containers come
    from the mixins, expressions from ExprGen."""

    def __init__(self, rng, config):
        self.rng = rng
        self.config = config
        self.used = set()
        self.ex = ExprGen(rng, config, self.used)
        self.counter = 0
        self.helpers = []          # (source, name, kind, signature)
        self.factories = {}        # name -> (arg type, ret type) of the closure it returns
        self.pieces = {}           # module-level definitions of gen_real (key -> source)
        self.imports = set()       # modules those need (collections, functools, ...)
        self.statements = STATEMENTS + [(w * config.real_code, c, m)
                                         for w, c, m in REAL_STATEMENTS + CALL_STATEMENTS
                                         if config.real_code > 0] + [
            (w * (config.real_code - 1.0), c, m) for w, c, m in HEAVY_STATEMENTS
            if config.real_code > 1.0]

    # -- small tools -----------------------------------------------------------------
    def name(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def e(self, t, scope, depth=None):
        return self.ex.expr(t, scope, self.config.max_depth if depth is None else depth)

    def ok(self, construct):
        return construct not in self.config.exclude

    def array_type(self, scope):
        return self.rng.choice(["f", "f", "f", "v", "v", "u", "m"])

    # -- programs ----------------------------------------------------------------------
    def program(self):
        scope = Scope()
        self.root_scope = scope
        for _ in range(self.rng.randint(*self.config.helpers)):
            self.helper(scope)
        params = self.params(scope)
        bound = self.ok("bound_method") and \
            self.rng.random() < BOUND_METHOD * self.config.real_code
        if bound:
            self.used.add("bound_method")
            self.bound_method_scope(scope)
        self.ret = self.ex.pick([r for r in RETURNS if self.ok(r[1] + "_result")
                                 or r[1] in "fvm"])[1]
        if self.ret not in "fvm":
            self.used.add(self.ret + "_result")
        if self.ok("global") and self.rng.random() < 0.3:
            self.used.add("global")
            scope.readers += [("v", "G"), ("f", "S")]
        body = self.block(scope, 1, 0, self.rng.randint(*self.config.stmts))
        body.append("    return " + self.result(scope))
        stdlib = "".join(f"import {m}\n" for m in sorted(self.imports | {"math"}))
        head = stdlib + "\nimport numpy as np\n" + \
            ("\nimport s2sad\n" if self.used & {"inner_grad", "inner_grad_expr"} else "") + \
            "\n" + GLOBALS
        pieces = "".join(src.rstrip("\n") + "\n\n\n" for src in self.pieces.values())
        helpers = "".join(src + "\n\n" for src, *_ in self.helpers)
        if bound:
            return head + pieces + helpers + self.bound_method_program(scope, params, body), \
                params
        sig = ", ".join(p for p, _ in params)
        return head + pieces + helpers + f"def f({sig}):\n" + "\n".join(body) + "\n", params

    def params(self, scope):
        out = []
        for name, t, p in PARAMS:
            if name != "x" and (self.rng.random() > p or not self.ok(_PARAM_CONSTRUCT.get(t, t))):
                continue
            out.append((name, t))
            scope.params.add(name)
            if t in READERS:
                self.used.add(_PARAM_CONSTRUCT[t])
                scope.readers += [(ty, e.format(p=name)) for ty, e in READERS[t]]
                if t == "L":
                    scope.lists[name] = "v"
            else:
                scope.vars[name] = t
        return out

    def result(self, scope):
        parts = [self.reduce_recent(scope) for _ in range(self.rng.randint(1, 3))]
        total = " + ".join(parts)
        if self.ret == "f":
            return total
        if self.ret in ("v", "m"):
            return f"{self.e(self.ret, scope, 2)} * ({total})"
        items = [total, self.e("v" if self.ret != "list" else "f", scope, 2)]
        if self.ret == "tuple":
            return f"({items[0]}, {items[1]})"
        if self.ret == "list":
            return f"[{items[0]}, {items[1]}]"
        if self.ret == "int_tuple":
            ints = scope.of("i") or ["3"]
            return f"({items[0]}, {self.rng.choice(ints)})"
        if self.ret == "nested":
            return f"{{'p': ({items[0]}, {items[1]}), 'q': [{self.e('f', scope, 1)}]}}"
        return f"{{'p': {items[0]}, 'q': {items[1]}}}"

    def reduce_recent(self, scope):
        """A scalar read of a variable, preferring the ones defined last."""
        names = [n for n, t in scope.vars.items() if t in ("f", "v", "u", "m")]
        if not names:
            return self.e("f", scope, 2)
        n = names[-1 - min(int(self.rng.expovariate(0.7)), len(names) - 1)]
        return n if scope.vars[n] == "f" else f"np.sum({n})"

    # -- blocks and statements --------------------------------------------------------
    def block(self, scope, indent, nest, count, loop=None):
        lines = []
        for _ in range(count):
            lines += self.statement(scope, indent, nest, loop)
        return lines or ["    " * indent + "pass"]

    def statement(self, scope, indent, nest, loop):
        for _ in range(20):
            weight, construct, method = self.ex.pick(self.statements)
            compound = method in LOOPS or method in ("s_if", "s_def")
            if not self.ok(construct) or not self.ok(REQUIRES.get(method, construct)) or \
                    compound and nest >= self.config.max_nest:
                continue
            if method == "s_return" and nest == 0:
                continue
            lines = getattr(self, method)(scope, indent, nest, loop)
            if lines:
                self.used.add(construct)
                return lines
        return self.s_assign(scope, indent, nest, loop)

    def pad(self, indent, text):
        return "    " * indent + text

    def s_assign(self, scope, indent, nest, loop):
        t = self.array_type(scope)
        name = self.name("v")
        line = self.pad(indent, f"{name} = {self.e(t, scope)}")
        scope.vars[name] = t
        return [line]

    def s_augassign(self, scope, indent, nest, loop):
        names = [n for n, t in scope.vars.items() if t == "f" and n not in _PARAM_NAMES]
        names += [n for n in scope.vars if n in scope.fresh]      # (in a fixed order)
        if not names:
            return None
        n = self.rng.choice(names)
        op = self.rng.choice(["+=", "+=", "-=", "*="])
        rhs = self.e(scope.vars[n] if op != "*=" else "f", scope, 2)
        if op == "*=":
            rhs = f"np.cos({rhs})"
        return [self.pad(indent, f"{n} {op} {rhs}")]

    def s_if(self, scope, indent, nest, loop):
        t = self.array_type(scope)
        name = self.name("c")
        lines = []
        arms = 1 + (self.rng.random() < 0.4 and self.ok("elif"))
        for k in range(arms):
            head = "if" if k == 0 else "elif"
            lines.append(self.pad(indent, f"{head} {self.e('b', scope, 2)}:"))
            lines += self.arm(scope, indent + 1, nest, loop, name, t)
        if arms > 1:
            self.used.add("elif")
        lines.append(self.pad(indent, "else:"))
        lines += self.arm(scope, indent + 1, nest, loop, name, t)
        scope.vars[name] = t
        return lines

    def arm(self, scope, indent, nest, loop, name, t):
        inner = scope.child()
        lines = self.block(inner, indent, nest + 1, self.rng.randint(0, 2), loop) \
            if self.rng.random() < 0.6 else []
        return [x for x in lines if x.strip() != "pass"] + \
            [self.pad(indent, f"{name} = {self.e(t, inner)}")]

    def s_if_update(self, scope, indent, nest, loop):
        names = [n for n, t in scope.vars.items() if t in "fvum" and n not in _PARAM_NAMES]
        if not names:
            return None
        n = self.rng.choice(names)
        inner = scope.child()
        return [self.pad(indent, f"if {self.e('b', scope, 2)}:"),
                self.pad(indent + 1, f"{n} = {self.update(n, scope.vars[n], inner)}")]

    def s_return(self, scope, indent, nest, loop):
        return [self.pad(indent, f"if {self.e('b', scope, 1)}:"),
                self.pad(indent + 1, f"return {self.result(scope)}")]

_PARAM_NAMES = {p for p, _, _ in PARAMS}
_PARAM_CONSTRUCT = {"T": "tuple_arg", "L": "list_arg", "D": "dict_arg"}


def generate(seed, index, config=None):
    """Program number `index` of the campaign with this seed (deterministic)."""
    config = config or GenConfig()
    rng = random.Random(f"s2sad-fuzz:{seed}:{index}")
    gen = Gen(rng, config)
    source, params = gen.program()
    return Program(source, params, set(gen.used), seed, index)


def draw_inputs(params, rng):
    """Arguments for f of the given parameter types (rng: a numpy Generator)."""
    def scalar():       # a Python float, now and then a NumPy scalar
        value = float(rng.choice([-1, 1]) * rng.uniform(0.2, 1.4))
        return np.float64(value) if rng.random() < 0.2 else value
    makers = {"f": scalar, "v": lambda: rng.normal(0, 0.8, 3),
              "u": lambda: rng.normal(0, 0.8, 2), "m": lambda: rng.normal(0, 0.8, (2, 3)),
              "i": lambda: int(rng.integers(0, 4)),
              "T": lambda: (scalar(), rng.normal(0, 0.8, 3)),
              "L": lambda: [rng.normal(0, 0.8, 3), rng.normal(0, 0.8, 3)],
              "D": lambda: {"a": scalar(), "b": rng.normal(0, 0.8, 3)}}
    return [makers[t]() for _, t in params]
