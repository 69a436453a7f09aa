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
named constructs out.  ``draw_inputs`` draws arguments of the parameter types.
"""

import random
from dataclasses import dataclass, field

from .exprs import ExprGen, Scope

PARAMS = [("x", "v", 1.0), ("y", "f", 0.8), ("M", "m", 0.45), ("n", "i", 0.6),
          ("w", "u", 0.15), ("T", "T", 0.15), ("L", "L", 0.2), ("D", "D", 0.15)]
READERS = {"T": [("f", "{p}[0]"), ("v", "{p}[1]")], "L": [("v", "{p}[0]"), ("v", "{p}[1]")],
           "D": [("f", "{p}['a']"), ("v", "{p}['b']")]}
RETURNS = [(8, "f"), (3, "v"), (1, "m"), (2, "tuple"), (1, "list"), (1, "dict")]
STATEMENTS = [  # (weight, construct, method)
    (12, "assign", "s_assign"), (3, "augassign", "s_augassign"), (5, "if", "s_if"),
    (2, "if", "s_if_update"), (4, "for_range", "s_for_range"), (2, "for_array", "s_for_array"),
    (2, "for_list", "s_for_list"), (2, "enumerate", "s_enumerate"), (2, "zip", "s_zip"),
    (1, "enum_zip", "s_enum_zip"), (3, "while", "s_while"), (2, "def", "s_def"),
    (2, "lambda", "s_lambda"), (2, "setitem_array", "s_setitem_array"),
    (1, "setitem_mask", "s_setitem_mask"), (2, "setitem_list", "s_list"),
    (2, "setitem_dict", "s_dict"), (1, "unpack", "s_tuple"), (2, "early_return", "s_return"),
    (2, "closure_factory", "s_factory"), (1, "append", "s_append"),
]
LOOPS = {"s_for_range", "s_for_array", "s_for_list", "s_enumerate", "s_zip", "s_enum_zip",
         "s_while"}


@dataclass
class GenConfig:
    """What the generator may produce: sizes, and constructs to leave out."""
    exclude: frozenset = frozenset()
    max_depth: int = 3          # expression depth
    max_nest: int = 2           # nesting of compound statements
    stmts: tuple = (3, 7)       # statements in f's body
    helpers: tuple = (0, 2)     # module-level helpers


@dataclass
class Program:
    source: str
    params: list                # [(name, type)]
    constructs: set = field(default_factory=set)
    seed: int = 0
    index: int = 0
    fname: str = "f"


class Gen:
    """Statements and programs; expressions are delegated to ExprGen."""

    def __init__(self, rng, config):
        self.rng = rng
        self.config = config
        self.used = set()
        self.ex = ExprGen(rng, config, self.used)
        self.counter = 0
        self.helpers = []          # (source, name, kind, signature)
        self.factories = {}        # name -> (arg type, ret type) of the closure it returns

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
        for _ in range(self.rng.randint(*self.config.helpers)):
            self.helper(scope)
        params = self.params(scope)
        self.ret = self.ex.pick([r for r in RETURNS if self.ok(r[1] + "_result")
                                 or r[1] in "fvm"])[1]
        if self.ret in ("tuple", "list", "dict"):
            self.used.add(self.ret + "_result")
        body = self.block(scope, 1, 0, self.rng.randint(*self.config.stmts))
        body.append("    return " + self.result(scope))
        head = "import math\n\nimport numpy as np\n\n\n"
        helpers = "".join(src + "\n\n" for src, *_ in self.helpers)
        sig = ", ".join(p for p, _ in params)
        return head + helpers + f"def f({sig}):\n" + "\n".join(body) + "\n", params

    def params(self, scope):
        out = []
        for name, t, p in PARAMS:
            if name != "x" and (self.rng.random() > p or not self.ok(_PARAM_CONSTRUCT.get(t, t))):
                continue
            out.append((name, t))
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
            weight, construct, method = self.ex.pick(STATEMENTS)
            if not self.ok(construct) or (method in LOOPS or method in ("s_if", "s_def")) \
                    and nest >= self.config.max_nest:
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
        names += [n for n in scope.fresh if n in scope.vars]
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

    def update(self, acc, t, scope):
        """A bounded new value for an accumulator acc of type t."""
        e = self.e(t if self.rng.random() < 0.7 else "f", scope, 2)
        forms = [f"{acc} * 0.5 + {e}", f"np.tanh({acc} + {e})", f"{acc} + {e} * 0.3",
                 f"{acc} * np.cos({self.e('f', scope, 1)}) + {e}", f"np.sin({acc}) * {e}"]
        return self.rng.choice(forms)

    def accumulator(self, scope, indent):
        """(lines, name, type) for a fresh accumulator before a loop."""
        t = self.rng.choice(["f", "f", "v", "v", "u", "m"])
        name = self.name("acc")
        init = self.e(t, scope, 2)
        if t != "f":
            init = self.rng.choice([f"({init}) * 1.0", f"np.zeros_like({init})",
                                    f"np.copy({init})"])
            scope.fresh.add(name)
        scope.vars[name] = t
        return [self.pad(indent, f"{name} = {init}")], name, t

    def loop_body(self, scope, indent, nest, acc, t, kind):
        """Statements, then the accumulator update, maybe continue/break/return."""
        lines = []
        if self.rng.random() < 0.2 and self.ok("continue"):
            self.used.add("continue")
            lines += [self.pad(indent, f"if {self.e('b', scope, 1)}:"),
                      self.pad(indent + 1, "continue")]
        body = self.block(scope, indent, nest + 1, self.rng.randint(0, 2), loop=kind)
        lines += [x for x in body if x.strip() != "pass"]
        if self.rng.random() < 0.3 and self.ok("augassign") and (t == "f" or acc in scope.fresh):
            self.used.add("augassign")
            lines.append(self.pad(indent, f"{acc} += {self.e(t, scope, 2)} * 0.5"))
        else:
            lines.append(self.pad(indent, f"{acc} = {self.update(acc, t, scope)}"))
        if self.rng.random() < 0.25 and self.ok("break"):
            self.used.add("break")
            lines += [self.pad(indent, f"if {self.e('b', scope, 1)}:"),
                      self.pad(indent + 1, "break")]
        return lines

    def loop(self, scope, indent, nest, head, binds, kind, outer):
        pre, acc, t = self.accumulator(scope, indent)
        inner = scope.child()
        inner.vars.update(binds)
        if outer:
            self.used.add("nested_loop")
        return pre + [self.pad(indent, head)] + \
            self.loop_body(inner, indent + 1, nest, acc, t, kind)

    def count(self, scope):
        ints = scope.of("i")
        n = self.rng.choice(ints) if ints else "3"
        forms = [f"range({n})", f"range({n})", f"range(1, {n} + 1)"]
        if self.ok("int_minmax"):
            forms.append(f"range(min({n}, 2))")
        if scope.vars.get("x") == "v":
            forms.append("range(len(x))")
        return self.rng.choice(forms)

    def s_for_range(self, scope, indent, nest, loop):
        i = self.name("i")
        return self.loop(scope, indent, nest, f"for {i} in {self.count(scope)}:", {i: "i"},
                         "for", loop)

    def s_for_array(self, scope, indent, nest, loop):
        src_t = self.rng.choice(["v", "m"])
        src = self.e(src_t, scope, 1)
        e = self.name("e")
        return self.loop(scope, indent, nest, f"for {e} in {src}:",
                         {e: "f" if src_t == "v" else "v"}, "for", loop)

    def list_source(self, scope):
        if scope.lists and self.rng.random() < 0.7:
            name = self.rng.choice(sorted(scope.lists))
            return name, scope.lists[name]
        return f"[{self.e('v', scope, 1)}, {self.e('v', scope, 1)}]", "v"

    def s_for_list(self, scope, indent, nest, loop):
        src, t = self.list_source(scope)
        a = self.name("a")
        return self.loop(scope, indent, nest, f"for {a} in {src}:", {a: t}, "for", loop)

    def s_enumerate(self, scope, indent, nest, loop):
        src, t = self.list_source(scope) if self.rng.random() < 0.5 else \
            (self.e("v", scope, 1), "f")
        k, a = self.name("k"), self.name("a")
        return self.loop(scope, indent, nest, f"for {k}, {a} in enumerate({src}):",
                         {k: "i", a: t}, "for", loop)

    def zipped(self, scope):
        (s1, t1), (s2, t2) = [self.list_source(scope) if self.rng.random() < 0.4 else
                              (self.e("v", scope, 1), "f") for _ in range(2)]
        return f"zip({s1}, {s2})", t1, t2

    def s_zip(self, scope, indent, nest, loop):
        src, t1, t2 = self.zipped(scope)
        a, b = self.name("a"), self.name("b")
        return self.loop(scope, indent, nest, f"for {a}, {b} in {src}:", {a: t1, b: t2}, "for",
                         loop)

    def s_enum_zip(self, scope, indent, nest, loop):
        src, t1, t2 = self.zipped(scope)
        k, a, b = self.name("k"), self.name("a"), self.name("b")
        return self.loop(scope, indent, nest, f"for {k}, ({a}, {b}) in enumerate({src}):",
                         {k: "i", a: t1, b: t2}, "for", loop)

    def s_while(self, scope, indent, nest, loop):
        pre, acc, t = self.accumulator(scope, indent)
        j = self.name("j")
        ints = scope.of("i")
        n = self.rng.choice(ints) if ints else "3"
        pre.append(self.pad(indent, f"{j} = 0"))
        if t == "f" and self.rng.random() < 0.4:
            head = f"while {j} < {n} + 1 and {acc} < 4.0:"
        elif self.rng.random() < 0.3:
            head = "while True:"
        else:
            head = f"while {j} < {n}:"
        inner = scope.child()
        inner.vars[j] = "i"
        if loop:
            self.used.add("nested_loop")
        lines = pre + [self.pad(indent, head), self.pad(indent + 1, f"{j} += 1")]
        if head == "while True:":
            self.used.add("break")
            lines += [self.pad(indent + 1, f"if {j} > {n}:"), self.pad(indent + 2, "break")]
        return lines + self.loop_body(inner, indent + 1, nest, acc, t, "while")

    def s_return(self, scope, indent, nest, loop):
        return [self.pad(indent, f"if {self.e('b', scope, 1)}:"),
                self.pad(indent + 1, f"return {self.result(scope)}")]

    def fn_types(self):
        t = self.rng.choice(["f", "f", "v", "m"])
        return t, self.rng.choice([t, t, "f"])

    def s_def(self, scope, indent, nest, loop):
        ta, tr = self.fn_types()
        h, a = self.name("h"), self.name("p")
        inner = scope.child()
        inner.vars[a] = ta
        lines = [self.pad(indent, f"def {h}({a}):")]
        if self.rng.random() < 0.5:
            tmp = self.name("t")
            tt = self.array_type(inner)
            lines.append(self.pad(indent + 1, f"{tmp} = {self.e(tt, inner, 2)}"))
            inner.vars[tmp] = tt
        lines.append(self.pad(indent + 1, f"return {self.e(tr, inner, 2)}"))
        scope.fns[h] = ([ta], tr)
        return lines + self.use_fn(scope, indent, h, ta, tr)

    def s_lambda(self, scope, indent, nest, loop):
        ta, tr = self.fn_types()
        h, a = self.name("g"), self.name("p")
        inner = scope.child()
        inner.vars[a] = ta
        scope.fns[h] = ([ta], tr)
        return [self.pad(indent, f"{h} = lambda {a}: {self.e(tr, inner, 2)}")] + \
            self.use_fn(scope, indent, h, ta, tr)

    def use_fn(self, scope, indent, h, ta, tr):
        if self.rng.random() < 0.3:
            return []
        name = self.name("r")
        line = self.pad(indent, f"{name} = {h}({self.e(ta, scope, 2)})")
        scope.vars[name] = tr
        return [line]

    def fresh_array(self, scope, indent):
        names = [n for n in scope.fresh if scope.vars.get(n) in ("v", "m")]
        if names and self.rng.random() < 0.5:
            return [], self.rng.choice(names)
        t = self.rng.choice(["v", "v", "m"])
        z = self.name("z")
        init = self.rng.choice([f"{self.e(t, scope, 2)} * 1.0", f"np.copy({self.e(t, scope, 2)})",
                                "np.zeros(3)" if t == "v" else "np.zeros((2, 3))"])
        scope.vars[z] = t
        scope.fresh.add(z)
        return [self.pad(indent, f"{z} = {init}")], z

    def s_setitem_array(self, scope, indent, nest, loop):
        lines, z = self.fresh_array(scope, indent)
        idx = [str(self.rng.randrange(2)), "-1", "1:"] if scope.vars[z] == "v" else \
            [f"{self.rng.randrange(2)}, {self.rng.randrange(3)}", "1", ":, 0"]
        ints = [n for n in scope.of("i") if n.startswith(("i", "k", "j"))]
        if ints and scope.vars[z] == "v":
            idx.append(f"{self.rng.choice(ints)} % 3")
        i = self.rng.choice(idx)
        t = "f"
        op = self.rng.choice(["=", "=", "+="])
        return lines + [self.pad(indent, f"{z}[{i}] {op} {self.e(t, scope, 2)}")]

    def s_setitem_mask(self, scope, indent, nest, loop):
        lines, z = self.fresh_array(scope, indent)
        op = self.rng.choice(["=", "+=", "*="])
        rhs = self.e("f", scope, 1)
        return lines + [self.pad(indent, f"{z}[{z} > {self.e('f', scope, 1)}] {op} {rhs}")]

    def s_list(self, scope, indent, nest, loop):
        t = self.rng.choice(["f", "v"])
        lst = self.name("lst")
        lines = [self.pad(indent, f"{lst} = [{self.e(t, scope, 2)}, {self.e(t, scope, 2)}]"),
                 self.pad(indent, f"{lst}[{self.rng.randrange(2)}] = {self.e(t, scope, 2)}")]
        scope.lists[lst] = t
        scope.readers += [(t, f"{lst}[0]"), (t, f"{lst}[-1]")]
        if t == "v" and self.ok("builtin_sum"):
            scope.readers.append(("v", f"sum({lst})"))
        return lines

    def s_append(self, scope, indent, nest, loop):
        t = self.rng.choice(["f", "v"])
        lst = self.name("lst")
        lines = [self.pad(indent, f"{lst} = [{self.e(t, scope, 2)}]")]
        inner = scope.child()
        i = self.name("i")
        inner.vars[i] = "i"
        lines += [self.pad(indent, f"for {i} in {self.count(scope)}:"),
                  self.pad(indent + 1, f"{lst}.append({self.e(t, inner, 2)})")]
        scope.lists[lst] = t
        scope.readers.append((t, f"{lst}[-1]"))
        if self.ok("builtin_sum"):
            scope.readers.append((t, f"sum({lst})"))
        return lines

    def s_dict(self, scope, indent, nest, loop):
        d = self.name("d")
        lines = [self.pad(indent, f"{d} = {{'a': {self.e('f', scope, 2)}, "
                                  f"'b': {self.e('v', scope, 2)}}}")]
        key, t = self.rng.choice([("a", "f"), ("b", "v"), ("c", "f")])
        lines.append(self.pad(indent, f"{d}['{key}'] = {self.e(t, scope, 2)}"))
        scope.readers += [("f", f"{d}['a']"), ("v", f"{d}['b']")]
        if key == "c":
            scope.readers.append(("f", f"{d}['c']"))
        return lines

    def s_tuple(self, scope, indent, nest, loop):
        p, q, r = self.name("p"), self.name("q"), self.name("r")
        lines = [self.pad(indent, f"{p} = ({self.e('f', scope, 2)}, {self.e('v', scope, 2)})"),
                 self.pad(indent, f"{q}, {r} = {p}")]
        scope.vars[q], scope.vars[r] = "f", "v"
        scope.readers.append(("f", f"{p}[0]"))
        return lines

    def s_factory(self, scope, indent, nest, loop):
        if not self.factories:
            return None
        fac = self.rng.choice(sorted(self.factories))
        ta, tr = self.factories[fac]
        g = self.name("g")
        line = self.pad(indent, f"{g} = {fac}({self.e('f', scope, 2)})")
        scope.fns[g] = ([ta], tr)
        return [line] + self.use_fn(scope, indent, g, ta, tr)

    # -- module-level helpers ---------------------------------------------------------------
    def helper(self, scope):
        kinds = [(4, "helper"), (2, "closure_factory"), (2, "higher_order"), (1, "recursion")]
        kind = self.ex.pick([k for k in kinds if self.ok(k[1])] or [(1, "helper")])[1]
        getattr(self, "h_" + kind)(scope)
        self.used.add(kind)

    def h_helper(self, scope):
        name = self.name("helper")
        args = [self.rng.choice(["f", "v", "v", "m"]) for _ in range(self.rng.randint(1, 2))]
        ret = self.rng.choice(["f", "v", args[0]])
        inner = Scope()
        inner.fns = dict(scope.fns)
        params = [self.name("a") for _ in args]
        inner.vars.update(zip(params, args))
        outer_ret, self.ret = getattr(self, "ret", None), ret
        body = self.block(inner, 1, 1, self.rng.randint(1, 3))
        self.ret = outer_ret
        body.append(f"    return {self.e(ret, inner, 2)}")
        self.helpers.append((f"def {name}({', '.join(params)}):\n" + "\n".join(body), name))
        scope.fns[name] = (args, ret)

    def h_closure_factory(self, scope):
        name = self.name("make")
        t = self.rng.choice(["f", "v"])
        inner = Scope()
        inner.vars.update({"c": "f", "a": t})
        body = self.e(t, inner, 2)
        src = (f"def {name}(c):\n    def inner(a):\n        return {body}\n\n    return inner")
        self.helpers.append((src, name))
        self.factories[name] = (t, t)

    def h_higher_order(self, scope):
        name = self.name("apply")
        t = self.rng.choice(["f", "v"])
        inner = Scope()
        inner.vars.update({"a": t})
        src = (f"def {name}(fn, a):\n    return fn(a) * 0.5 + {self.e(t, inner, 2)}")
        self.helpers.append((src, name))
        scope.fns[name] = (["fn", t], t)

    def h_recursion(self, scope):
        name = self.name("rec")
        t = self.rng.choice(["f", "v"])
        inner = Scope()
        inner.vars.update({"a": t})
        step = self.e(t, inner, 1)
        src = (f"def {name}(a, k):\n    if k <= 0:\n        return a\n"
               f"    return {name}(np.sin(a) * 0.9 + 0.1 * ({step}), k - 1)")
        self.helpers.append((src, name))
        scope.fns[name] = ([t, "i"], t)


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
    def scalar():
        return float(rng.choice([-1, 1]) * rng.uniform(0.2, 1.4))
    makers = {"f": scalar, "v": lambda: rng.normal(0, 0.8, 3),
              "u": lambda: rng.normal(0, 0.8, 2), "m": lambda: rng.normal(0, 0.8, (2, 3)),
              "i": lambda: int(rng.integers(0, 4)),
              "T": lambda: (scalar(), rng.normal(0, 0.8, 3)),
              "L": lambda: [rng.normal(0, 0.8, 3), rng.normal(0, 0.8, 3)],
              "D": lambda: {"a": scalar(), "b": rng.normal(0, 0.8, 3)}}
    return [makers[t]() for _, t in params]
