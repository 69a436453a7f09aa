"""The expression grammar of the program generator: typed, weighted templates.

Types: ``f`` a scalar float, ``v`` a float array of shape (3,), ``u`` of shape
(2,), ``m`` of shape (2, 3), ``i`` a small int (a count, an index), ``b`` a
condition.  A template's holes name the type they need (``{f}``, ``{v2}``:
the letters before the digits); the same hole twice is the same
subexpression.  Each template carries the *construct* it exercises, so a
configuration can exclude it (``GenConfig.exclude``) and the campaign can
count refusals by construct.  :class:`ExprGen` fills templates from a
:class:`Scope` (the variables, local functions and helpers in reach).
"""

import ast
import re

# (weight, construct, template) per result type
F_TEMPLATES = [
    (6, "arith", "({f} + {f2})"), (5, "arith", "({f} * {f2})"), (4, "arith", "({f} - {f2})"),
    (3, "arith", "({f} / (1.5 + {f2} * {f2}))"), (2, "arith", "({f} / 1.7)"), (2, "arith", "-{f}"),
    (3, "mod", "({f} % 0.7)"), (2, "mod", "({f} % (1.0 + {f2} * {f2}))"),
    (2, "floordiv", "(({f} // 0.6) * {f2})"), (1, "floordiv", "({f} // 0.45)"),
    (3, "pow", "({f} ** 2)"), (2, "pow", "pow({f}, 3)"), (2, "frac_pow", "abs({f}) ** 1.5"),
    (2, "pow", "(1.1 + {f} * {f}) ** np.tanh({f2})"), (1, "pow", "pow(1.2 + {f} * {f}, 0.5)"),
    (3, "abs", "abs({f})"), (3, "builtin_minmax", "min({f}, {f2})"),
    (3, "builtin_minmax", "max({f}, {f2}, {f3})"),
    (2, "builtin_minmax", "max({v})"), (2, "builtin_sum", "sum({v})"),
    (2, "builtin_sum", "sum([{f}, {f2}, 0.5])"), (2, "genexp", "sum(e * e for e in {v})"),
    (1, "genexp", "sum(a * b for a, b in zip({v}, {v2}))"),
    (1, "genexp", "min(e * {f} for e in {v})"),
    (1, "dict_items", "sum(val * 2.0 for key, val in dict(a={f}, b={f2}).items())"),
    (1, "star_unpack", "(lambda h, *t: h * sum(t))({f}, {f2}, {f3})"),
    (3, "math", "math.sin({f})"), (3, "math", "math.cos({f})"), (2, "math", "math.tanh({f})"),
    (2, "math", "math.exp(math.sin({f}))"), (2, "math", "math.log(1.0 + {f} * {f})"),
    (2, "math", "math.sqrt(1.0 + {f} * {f})"), (1, "math", "math.atan({f})"),
    (1, "math", "(math.pi * {f})"), (1, "floor", "(math.floor({f}) * {f2})"),
    (3, "ufunc", "np.sin({f})"), (2, "ufunc", "np.tanh({f})"), (2, "ufunc", "np.exp(np.cos({f}))"),
    (1, "ufunc", "np.log1p({f} * {f})"), (1, "ufunc", "np.arctan({f})"),
    (4, "reduce", "np.sum({v})"), (3, "reduce", "np.mean({m})"), (2, "reduce", "np.max({v})"),
    (2, "reduce", "np.min({m})"), (2, "reduce", "{v}.sum()"), (2, "reduce", "np.prod({v})"),
    (1, "reduce", "{m}.max()"), (1, "reduce", "np.sum({u})"),
    (2, "reduce_axis", "np.sum(np.max({m}, axis=1))"),
    (3, "matmul", "({v} @ {v2})"), (2, "matmul", "np.dot({v}, {v2})"),
    (1, "matmul", "({u} @ ({m} @ {v}))"), (1, "linalg", "np.linalg.norm({v})"),
    (3, "index", "{v}[{k3}]"), (2, "index", "{m}[{k2}, {k3}]"), (2, "index", "{v}[-1]"),
    (2, "index", "{v}[{i} % 3]"), (2, "mask", "np.sum({v}[{v} > {f}])"),
    (1, "mask", "np.sum({m}[{m} < 0.2])"),
    (3, "ternary", "({f} if {b} else {f2})"), (2, "intmix", "(({i} + 1.0) * {f})"),
    (1, "intmix", "({i} * {f})"), (2, "boolval", "({f} or {f2})"),
    (1, "boolval", "({f} and {f2})"),
    (1, "fancy", "np.sum({v}[[0, 0, 2]])"), (1, "fancy", "np.take({v}, [2, 2, 0]) @ {v2}"),
    (1, "einsum", "np.einsum('i,i->', {v}, {v2})"),
    (1, "einsum", "np.einsum('ij,ij->', {m}, {m2})"),
    (1, "linalg", "np.trace(np.outer({v}, {v2}))"), (1, "reduce", "np.var({v})"),
    (1, "reduce", "np.std({m})"), (1, "ufunc", "np.hypot({f}, 0.5)"),
    (1, "ufunc", "np.arctan2({f}, 1.5 + {f2} * {f2})"), (1, "ufunc", "np.logaddexp({f}, {f2})"),
    (1, "ufunc", "np.exp2(np.sin({f}))"), (1, "pow", "2.0 ** {f}"),
    (1, "pow", "(abs({f}) + 0.5) ** {f2}"), (1, "pow", "np.power({f}, 2)"),
    (1, "ufunc_method", "np.maximum.reduce({v})"), (1, "ufunc_method", "np.hypot.reduce({v})"),
    (1, "convert", "float({f})"), (1, "linalg", "np.linalg.det({m} @ {m}.T + np.eye(2))"),
    (1, "linalg", "np.linalg.norm({m})"), (1, "cumprod", "np.sum(np.cumprod({v}))"),
    (1, "method", "{v}.mean()"), (1, "method", "{m}.std()"), (1, "method", "{v}.dot({v2})"),
    (2, "dyn_slice", "np.sum({v}[:{i}])"), (1, "dyn_slice", "np.sum({v}[{i}:] * 2.0)"),
    (1, "dyn_slice", "np.sum({m}[:, :{i}])"), (1, "dyn_slice", "np.sum({v}[-{i} - 1:])"),
    (2, "intpow", "({f} ** {i})"), (1, "intpow", "pow({f}, {i} + 1)"), 
    (1, "listcomp", "np.sum(np.array([np.sin(e) for e in {v} if e > {f}]))"),
    (1, "listcomp", "np.sum(np.array([a * b for a, b in zip({v}, {v2})]))"),
]

V_TEMPLATES = [
    (6, "arith", "({v} + {v2})"), (5, "arith", "({v} * {f})"), (4, "arith", "({v} * {v2})"),
    (3, "arith", "({v} - {f})"), (2, "arith", "({v} / (1.5 + {v2} * {v2}))"), (1, "arith", "-{v}"),
    (3, "ufunc", "np.sin({v})"), (3, "ufunc", "np.tanh({v})"), (2, "ufunc", "np.cos({v})"),
    (2, "ufunc", "np.exp(np.tanh({v}))"), (1, "ufunc", "np.log1p({v} * {v})"),
    (1, "ufunc", "np.sqrt(1.0 + {v} ** 2)"), (1, "ufunc", "np.square({v})"),
    (1, "ufunc", "np.arctan({v})"),
    (2, "abs", "np.abs({v})"), (1, "abs", "abs({v})"),
    (2, "minmax", "np.maximum({v}, {v2})"), (2, "minmax", "np.minimum({v}, {f})"),
    (2, "where", "np.where({v} > {v2}, {v}, {v2} * 0.5)"),
    (1, "where", "np.where({v} < {f}, {v}, {f})"), (2, "mod", "({v} % 0.9)"),
    (1, "mod", "np.mod({v}, 1.3)"), (1, "floordiv", "(({v} // 0.7) * {v2})"),
    (1, "clip", "np.clip({v}, -0.5, 0.8)"), (2, "pow", "({v} ** 2)"), (1, "pow", "({v} ** 3)"),
    (3, "reduce_axis", "np.sum({m}, axis=0)"), (2, "reduce_axis", "np.mean({m}, axis=0)"),
    (1, "reduce_axis", "np.max({m}, axis=0)"), (1, "reduce_axis", "{m}.sum(axis=0)"),
    (1, "keepdims", "np.sum({m}, axis=0, keepdims=True)[0]"),
    (2, "index", "{m}[{k2}]"), (2, "slice", "{m}[{k2}, :]"), (2, "slice", "{v}[::-1]"),
    (2, "slice", "np.concatenate([{v}[1:], {v}[:1]])"), (1, "fancy", "{v}[[2, 0, 1]]"),
    (2, "matmul", "({m}.T @ {u})"), (2, "matmul", "({u} @ {m})"), (1, "cumsum", "np.cumsum({v})"),
    (1, "sort", "np.sort({v})"), (2, "broadcast", "(np.ones(3) * {f})"),
    (2, "array_lit", "np.array([{f}, {f2}, {f3}])"), (2, "ternary", "({v} if {b} else {v2})"),
    (1, "intmix", "({v} * ({i} + 1.0))"), (1, "fancy", "{v}[[0, 0, 2]]"),
    (1, "fancy", "np.take({v}, [2, 2, 0])"), (1, "roll", "np.roll({v}, 1)"),
    (1, "shape", "np.flip({v})"), (1, "cumprod", "np.cumprod(np.tanh({v}))"),
    (1, "einsum", "np.einsum('ij,i->j', {m}, {u})"), (1, "matmul", "np.dot({u}, {m})"),
    (1, "method", "{m}.T.dot({u})"), (1, "pow", "np.power({v}, 2)"),
    (1, "ufunc", "np.hypot({v}, 1.0)"), (1, "ufunc", "np.logaddexp({v}, {f})"),
    (1, "pow", "(np.abs({v}) + 0.5) ** {f}"), (1, "shape", "np.squeeze({m}[:1])"),
    (1, "shape", "np.expand_dims({v}, 0)[0]"), (1, "shape", "{v}.reshape(1, 3)[0]"),
    (1, "shape", "np.ravel({m})[1:4]"), (1, "shape", "{m}.flatten()[::2]"),
    (1, "broadcast", "({v}[:, None] * {u}[None, :]).sum(axis=1)"), (1, "intpow", "({v} ** {i})"),
    (1, "stack", "np.hstack([{u}, {f} * {u}[:1]])"),
    (1, "split", "np.split(np.concatenate([{v}, {v2}]), 2)[1]"),
    (1, "ufunc_method", "np.add.accumulate({v})"),
    (1, "ufunc_method", "np.multiply.outer({v}, {u}).sum(axis=1)"),
    (1, "ufunc_method", "np.logaddexp.reduce(np.stack([{v}, {v2}]), axis=0)"),
    (1, "polynomial", "np.polynomial.chebyshev.chebval({v}, [0.3, -0.2, 0.5])"),
    (1, "polynomial", "np.polynomial.hermite_e.hermeval({v}, np.array([{f}, 0.5, {f2}]))"),
    (1, "split", "np.array_split({v} * {v2}, [1])[1][0] * {v}"),
]

U_TEMPLATES = [
    (4, "matmul", "({m} @ {v})"), (3, "reduce_axis", "np.sum({m}, axis=1)"),
    (2, "reduce_axis", "{m}.mean(axis=-1)"), (1, "reduce_axis", "np.max({m}, axis=1)"),
    (2, "slice", "{m}[:, {k3}]"), (2, "slice", "{v}[:2]"), (2, "slice", "{v}[1:]"),
    (3, "arith", "({u} + {u2})"), (3, "arith", "({u} * {f})"), (2, "ufunc", "np.tanh({u})"),
    (1, "ufunc", "np.sin({u})"), (1, "array_lit", "np.array([{f}, {f2}])"),
    (1, "slice", "{v}[::2]"), (1, "diag", "np.diag({m}[:, :2])"),
    (1, "linalg", "np.linalg.solve({m} @ {m}.T + 2.0 * np.eye(2), {u})"),
    (1, "matmul", "np.dot({m}, {v})"),
    (1, "split", "np.hsplit({m}, 3)[2][:, 0]"), (1, "split", "np.vsplit({m}, 2)[1][0, 1:]"),
]

M_TEMPLATES = [
    (4, "arith", "({m} * {f})"), (3, "arith", "({m} + {m2})"), (3, "broadcast", "({m} + {v})"),
    (3, "broadcast", "({m} * {u}[:, None])"), (2, "broadcast", "({v}[None, :] * {m})"),
    (2, "matmul", "np.outer({u}, {v})"), (3, "ufunc", "np.tanh({m})"), (2, "ufunc", "np.sin({m})"),
    (2, "stack", "np.stack([{v}, {v2}])"), (1, "array_lit", "np.array([{v}, {v2}])"),
    (2, "keepdims", "({m} - np.mean({m}, axis=1, keepdims=True))"),
    (1, "keepdims", "({m} / (1.0 + np.sum({m} * {m}, axis=0, keepdims=True)))"),
    (1, "matmul", "(({m} @ {m}.T) @ {m} * 0.3)"), (2, "minmax", "np.maximum({m}, {f})"),
    (1, "where", "np.where({m} > {f}, {m}, 0.1 * {m})"), (1, "slice", "{m}[::-1]"),
    (1, "fancy", "{m}[:, [2, 1, 0]]"), (1, "slice", "{m}.reshape(3, 2).T"),
    (1, "mod", "({m} % 1.1)"), (1, "abs", "np.abs({m})"),
    (1, "shape", "np.tile({v}, (2, 1))"), (1, "shape", "np.repeat({v}[None, :], 2, axis=0)"),
    (1, "stack", "np.vstack([{v}, {v2}])"),
    (1, "stack", "np.concatenate([{v}[None], {v2}[None]], axis=0)"),
    (1, "einsum", "np.einsum('i,j->ij', {u}, {v})"), (1, "fancy", "{m}[[1, 0]]"),
    (1, "cumsum", "np.cumsum({m}, axis=1)"),
    (1, "linalg", "np.linalg.inv({m} @ {m}.T + np.eye(2)) @ {m}"), (1, "pow", "({m} ** 2)"),
    (1, "shape", "np.swapaxes({m}.reshape(3, 2), 0, 1)"),
    (1, "stack", "np.column_stack([{v}, {v2}]).T"),
    (1, "stack", "np.hstack([{m}[:, :1], {m2}[:, 1:]])"),
    (1, "stack", "np.dstack([{m}, {m2}])[..., 1]"),
]

I_TEMPLATES = [
    (3, "int", "len({v})"), (2, "int_minmax", "min({i}, 2)"), (2, "int", "({i} + 1)"),
    (1, "int", "{v}.shape[0]"), (1, "int_minmax", "max({i}, 1)"),
]

B_TEMPLATES = [
    (6, "compare", "{f} > {f2}"), (4, "compare", "{f} < 0.3"), (3, "compare", "{f} >= -0.2"),
    (2, "compare", "np.sum({v}) > {f}"), (2, "chain", "-0.5 < {f} <= {f2}"),
    (1, "chain", "{f} < {f2} < {f3}"), (2, "not", "not {b}"), (2, "boolop", "({b} and {b2})"),
    (2, "boolop", "({b} or {b2})"), (2, "intcmp", "{i} > 1"), (1, "mod", "{i} % 2 == 0"),
    (1, "compare", "np.all({v} > -1.0)"), (1, "compare", "np.any({v} > {f})"),
]

TEMPLATES = {"f": F_TEMPLATES, "v": V_TEMPLATES, "u": U_TEMPLATES, "m": M_TEMPLATES,
             "i": I_TEMPLATES, "b": B_TEMPLATES}
CONSTS = {"f": ["0.5", "1.3", "(-0.7)", "2.0", "0.25"], "v": ["np.linspace(0.1, 0.9, 3)",
          "np.array([0.3, -0.4, 0.8])"], "u": ["np.array([0.6, -0.2])"],
          "m": ["(np.arange(6.0).reshape(2, 3) * 0.2)"], "i": ["1", "2", "0"]}
# a value of type t built from a variable of another type, when none of type t is in reach
DERIVED = {"f": [("v", "{}[1]"), ("u", "{}[0]"), ("m", "{}[1, 2]")],
           "v": [("f", "(np.linspace(0.1, 0.9, 3) * {})"), ("m", "{}[0]"),
                 ("u", "np.concatenate([{0}, {0}[:1]])")],
           "u": [("v", "{}[:2]"), ("m", "{}[:, 1]"), ("f", "(np.array([0.6, -0.2]) * {})")],
           "m": [("v", "np.outer(np.array([0.6, -0.2]), {})"), ("u", "np.outer({}, np.ones(3))"),
                 ("f", "(np.arange(6.0).reshape(2, 3) * {})")]}
HOLE = re.compile(r"\{([a-z])(\d*)\}")
ARRAY_TYPES = ("f", "v", "u", "m")


def atomic(template):
    """The template in parentheses unless it is already one primary (a call, a name, a
    subscript...), so that filling it into another template keeps its meaning."""
    probe = HOLE.sub(lambda m: "h" + m.group(1) + (m.group(2) or "0"), template)
    node = ast.parse(probe, mode="eval").body
    primary = (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.List,
               ast.Tuple, ast.Dict)
    if isinstance(node, primary) and not (isinstance(node, ast.Constant) and
                                          template.startswith("-")):
        return template
    return f"({template})"


class Scope:
    """What an expression may read: typed variables, local functions, helpers."""

    def __init__(self, parent=None):
        self.vars = dict(parent.vars) if parent else {}       # name -> type
        self.fns = dict(parent.fns) if parent else {}         # name -> (arg types, ret type)
        self.readers = list(parent.readers) if parent else []  # (type, expr) of container items
        self.fresh = set(parent.fresh) if parent else set()   # arrays safe to change in place
        self.lists = dict(parent.lists) if parent else {}     # local list name -> item type
        self.params = set(parent.params) if parent else set()  # f's parameter names
        self.module_fns = set(parent.module_fns) if parent else set()  # plain helpers
        self.extra = dict(parent.extra) if parent else {}     # e.g. 'rngs': local generators

    def child(self):
        return Scope(self)

    def of(self, t):
        return [n for n, ty in self.vars.items() if ty == t]


class ExprGen:
    """Random typed expressions: ``expr(t, depth)`` returns Python source text."""

    def __init__(self, rng, config, used):
        self.rng = rng
        self.config = config
        self.used = used            # constructs used, filled as templates are picked
        # a template that writes a lambda is a lambda too (star_unpack's)
        self._tables = {t: [(w, c, atomic(tpl) if t != "b" else tpl) for w, c, tpl in ps
                            if c not in config.exclude and not
                            ("lambda" in tpl and "lambda" in config.exclude)]
                        for t, ps in TEMPLATES.items()}

    def allowed(self, construct):
        return construct not in self.config.exclude

    def pick(self, weighted):
        """One item of [(weight, ...), ...] by weight."""
        total = sum(w[0] for w in weighted)
        r = self.rng.uniform(0, total)
        for item in weighted:
            r -= item[0]
            if r <= 0:
                return item
        return weighted[-1]

    def expr(self, t, scope, depth):
        if t == "b":
            return self.fill(self.pick(self._tables["b"]), scope, max(depth - 1, 0))
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(t, scope)
        calls = self.calls(t, scope, depth)
        if calls and self.rng.random() < 0.25:
            return self.rng.choice(calls)
        return self.fill(self.pick(self._tables[t]), scope, depth - 1)

    def fill(self, production, scope, depth):
        _, construct, template = production
        self.used.add(construct)
        seen = {}

        def hole(match):
            key = match.group(0)
            if key not in seen:
                kind = match.group(1)
                if kind == "k":      # a constant index below the number in the hole
                    seen[key] = str(self.rng.randrange(int(match.group(2))))
                else:
                    seen[key] = self.distinct(kind, scope, depth, seen.values())
            return seen[key]
        return HOLE.sub(hole, template)

    def distinct(self, t, scope, depth, taken):
        """An expression of type t that differs from the ones already in a template
        (``y > y`` would sit on its switching point forever)."""
        for _ in range(3):
            e = self.expr(t, scope, depth)
            if e not in taken:
                return e
        return self.rng.choice(CONSTS[t]) if t in CONSTS else e

    def leaf(self, t, scope):
        names = scope.of(t) + [e for ty, e in scope.readers if ty == t]
        if names and self.rng.random() < 0.85:
            return self.rng.choice(names)
        if t == "f" and scope.of("v") and self.rng.random() < 0.5:
            self.used.add("index")
            return f"{self.rng.choice(scope.of('v'))}[{self.rng.randrange(3)}]"
        derived = [(form, n) for ty, form in DERIVED.get(t, []) for n in scope.of(ty)]
        if derived and self.rng.random() < 0.8:
            form, n = self.rng.choice(derived)
            return form.format(n)
        return self.rng.choice(CONSTS[t])

    def calls(self, t, scope, depth):
        """Calls of local functions and helpers that return t."""
        out = []
        for name, (args, ret) in scope.fns.items():
            if "fn" in args and not self.allowed("lambda"):
                continue
            if ret == t and all(a in ARRAY_TYPES or a in ("i", "fn") for a in args):
                out.append(self.call(name, args, scope, depth))
        if self.allowed("inner_grad_expr") and self.rng.random() < 0.2:
            out += self.inner_grads(t, scope, depth)
        return out

    def inner_grads(self, t, scope, depth):
        """s2sad.grad(h)(...) / s2sad.derivative(h)(...) of a module-level helper, made and
        called in one expression inside f."""
        out = []
        for name in sorted(scope.module_fns):
            args, ret = scope.fns[name]
            if ret == "f" and args[0] == t:
                out.append("s2sad.grad(" + self.call(name, args, scope, depth)[:-1]
                           .replace("(", ")(", 1) + ")")
            if ret == t and args[0] in ARRAY_TYPES:
                out.append("s2sad.derivative(" + self.call(name, args, scope, depth)[:-1]
                           .replace("(", ")(", 1) + ")")
        if out:
            self.used.add("inner_grad_expr")
        return out

    def call(self, name, args, scope, depth):
        parts = []
        for a in args:
            if a == "fn":
                self.used.add("lambda")
                parts.append(f"lambda a: np.sin(a) * {self.leaf('f', scope)}")
            else:
                parts.append(self.expr(a, scope, depth - 1))
        return f"{name}({', '.join(parts)})"
