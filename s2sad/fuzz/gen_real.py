"""The Python published code is written in (a mixin of :class:`s2sad.fuzz.gen.Gen`).

Random draws inside the objective (a module-level ``np.random.RandomState`` or
``default_rng`` generator, one made inside with ``np.random.default_rng(seed)``,
NumPy's global ``np.random.randn(*x.shape)``), used as the constants of a
reparameterization or drawn and dropped; objects and methods (a module-level object
of a small class with a counter, a class built inside, a namedtuple holding
differentiated arrays, a dataclass of constant fields, and ``f`` itself a bound method
of the program's object: :meth:`bound_method_program`); strings (f-strings with format
specs and conversions, ``str.format``, ``%``, ``print`` of differentiated values,
strings built in branches that never run, a string that chooses the branch); sequences
as Python uses them (tuple and list concatenation where the list's length is decided at
run time, ``f(*t)``, ``zip(*pairs)``, ``map``, ``functools.partial``,
``functools.reduce``, ``filter``, ``sorted``/``max`` with a key, ``np.zeros(*shape)``);
functions held in containers (lists, dicts, a module tuple, lambdas with loop
defaults, one chosen by an int or by the data); and generator functions the objective
iterates (a loop of yields with an early return, neighbours' products, ``yield from``),
read by ``sum``, ``list`` or a ``for`` loop.

Module-level pieces (the classes, generators, namedtuple types) are made on first
use (``Gen.piece``) and written between the globals and the helpers; the imports they
need (``collections``, ``dataclasses``, ``functools``, ``operator``) are added to the
program's head.  The oracle re-seeds every generator before each evaluation (see
:mod:`s2sad.fuzz.oracle`), so a draw is the same constants in the plain call, in
s2sad's code and at every finite-difference point.
"""

from .exprs import Scope
from .gen_numpy_calls import CALL_STATEMENTS, HEAVY_STATEMENTS

# (weight, construct, method); GenConfig.real_code scales the weights
REAL_STATEMENTS = [
    (1.5, "rand_module", "s_draw_module"), (1.0, "rand_local", "s_draw_local"),
    (1.0, "rand_global", "s_draw_global"),
    (1.0, "method_obj", "s_obj_method"), (1.0, "class_inside", "s_obj_inside"),
    (0.8, "namedtuple", "s_namedtuple"), (0.6, "dataclass", "s_dataclass"),
    (1.0, "fstring", "s_fstring"), (0.6, "print", "s_print"),
    (0.6, "dead_string", "s_dead_string"), (0.6, "str_switch", "s_str_switch"),
    (0.7, "tuple_concat", "s_tuple_concat"), (1.0, "list_concat", "s_list_concat"),
    (0.7, "star_call", "s_star_call"), (0.7, "zip_star", "s_zip_star"),
    (0.7, "map", "s_map"), (0.7, "partial", "s_partial"),
    (0.7, "functools_reduce", "s_functools_reduce"), (0.7, "filter", "s_filter"),
    (0.7, "sorted_key", "s_sorted_key"), (0.6, "zeros_star", "s_zeros_star"),
    (1.2, "fn_container", "s_fn_container"), (0.8, "generator", "s_generator"),
    (1.0, "built_object", "s_built_object"), (0.8, "item_element", "s_item_element"),
    (0.6, "fancy_copy", "s_fancy_copy"), (1.0, "held_state", "s_held_state"),
    (0.7, "itertools", "s_itertools"), (0.6, "walrus", "s_walrus"),
    (0.9, "dict_step", "s_dict_step"), (0.8, "history", "s_history"),
    (0.8, "masks", "s_masks"), (0.7, "model_params", "s_model_params"),
]
# every construct this module and gen_numpy_calls.py name (for per-construct counts)
REAL_CONSTRUCTS = [c for _, c, _ in REAL_STATEMENTS + CALL_STATEMENTS + HEAVY_STATEMENTS] + [
    "rand_module_generator", "class_inside_diff", "namedtuple_inside", "namedtuple_unpack",
    "list_iadd", "repr_format", "bound_method", "match"]
# constructs a statement also needs (excluding one excludes the statement)
REAL_REQUIRES = {"s_star_call": "def", "s_partial": "def"}
# the chance that f is a bound method of the program's object (times GenConfig.real_code)
BOUND_METHOD = 0.06
SHAPES = {"v": "(3,)", "u": "(2,)", "m": "(2, 3)"}
SEEDS = ["0", "1", "3", "7", "42"]


class RealCodeStatements:
    """s_* methods for draws, objects, strings, sequences and functions in containers."""

    # -- tools ------------------------------------------------------------------------
    def piece(self, key, source, imports=()):
        """A module-level definition, written once (in order of first use)."""
        if key not in self.pieces:
            self.pieces[key] = source
        self.imports.update(imports)

    def shape_of(self, scope, t):
        """x.shape of a variable of type t in reach, else the literal shape."""
        names = [n for n in scope.of(t) if n not in scope.fresh]
        if names and self.rng.random() < 0.7:
            return f"{self.rng.choice(names)}.shape"
        return SHAPES[t]

    def plain(self, scope, t, depth=1):
        """(lines, text): an expression of type t safe inside an f-string (a name when the
        expression holds braces, quotes or backslashes)."""
        e = self.e(t, scope, depth)
        if any(c in e for c in '{}"\\') or len(e) > 60:
            tmp = self.name("val")
            scope.vars[tmp] = t
            return [f"{tmp} = {e}"], tmp
        return [], e

    def seq_of(self, scope, t, n=3):
        """A list of n expressions of type t (a literal), or a list of t in reach."""
        names = [k for k, ty in scope.lists.items() if ty == t]
        if names and self.rng.random() < 0.4:
            return self.rng.choice(sorted(names))
        return "[" + ", ".join(self.e(t, scope, 1) for _ in range(n)) + "]"

    def unary_fn(self, scope, t):
        """Text of a function of one argument of type t returning t."""
        forms = ["np.sin", "np.tanh"]
        if self.ok("lambda"):
            forms.append(f"lambda e: e * {self.e('f', scope, 1)} + 0.1")
            forms.append("lambda e: np.cos(e) * 0.5")
        local = [n for n, (a, r) in scope.fns.items() if a == [t] and r == t and
                 n.isidentifier()]
        if local:
            forms.append(self.rng.choice(local))
        return self.rng.choice(forms)

    def strings(self, forms):
        """One of the forms; `!r` (a float's repr) only where repr_format is allowed."""
        ok = [f for f in forms if "!r" not in str(f)] if not self.ok("repr_format") else forms
        pick = self.rng.choice(ok or forms)
        if "!r" in str(pick):
            self.used.add("repr_format")
        return pick

    def use_draw(self, scope, indent, t, draw):
        """e = <draw>; maybe s = e * exp(...) + mu (a reparameterized sample)."""
        e = self.name("e")
        lines = [self.pad(indent, f"{e} = {draw}")]
        scope.vars[e] = t
        if t in "fvum" and self.rng.random() < 0.5:
            s = self.name("s")
            lines.append(self.pad(indent, f"{s} = {e} * np.exp(0.5 * np.tanh("
                                          f"{self.e(t, scope, 1)})) + {self.e(t, scope, 2)}"))
            scope.vars[s] = t
        return lines

    # -- random draws -------------------------------------------------------------------
    def s_draw_module(self, scope, indent, nest, loop):
        """A draw from the module's RandomState RS (or its Generator RNG)."""
        if self.rng.random() < 0.7:
            self.piece("RS", f"RS = np.random.RandomState({self.rng.choice(SEEDS)})")
            forms = [("v", "RS.randn(3)"), ("m", "RS.rand(2, 3)"),
                     ("v", f"RS.normal(size={self.shape_of(scope, 'v')})"),
                     ("m", f"RS.normal(0.0, 0.5, size={self.shape_of(scope, 'm')})"),
                     ("u", "RS.uniform(-1.0, 1.0, 2)"), ("f", "RS.randn()"),
                     ("f", "RS.normal()"), ("i", "RS.randint(0, 3)"),
                     ("v", "RS.standard_normal(3)")]
            dropped = "RS.rand(3)"
        else:
            self.used.add("rand_module_generator")
            self.piece("RNG", f"RNG = np.random.default_rng({self.rng.choice(SEEDS)})")
            forms = [("v", "RNG.normal(size=3)"), ("m", "RNG.standard_normal((2, 3))"),
                     ("f", "RNG.random()"), ("u", "RNG.uniform(-1.0, 1.0, size=2)"),
                     ("v", f"RNG.normal(0.0, 0.3, size={self.shape_of(scope, 'v')})"),
                     ("i", "int(RNG.integers(0, 3))")]
            dropped = "RNG.random(3)"
        if self.rng.random() < 0.15:          # drawn and not read: still advances the state
            return [self.pad(indent, dropped)]
        t, draw = self.rng.choice(forms)
        return self.use_draw(scope, indent, t, draw)

    def s_draw_local(self, scope, indent, nest, loop):
        """rng = np.random.default_rng(seed) made inside f, then draws from it."""
        rngs = scope.extra.get("rngs", [])
        lines = []
        if rngs and self.rng.random() < 0.5:
            r = self.rng.choice(rngs)
        else:
            r = self.name("rng")
            lines.append(self.pad(indent, f"{r} = np.random.default_rng("
                                          f"{self.rng.choice(SEEDS)})"))
            scope.extra["rngs"] = rngs + [r]
        forms = [("v", f"{r}.normal(size={self.shape_of(scope, 'v')})"),
                 ("m", f"{r}.normal(0.0, 0.3, size=(2, 3))"), ("v", f"{r}.random(3)"),
                 ("f", f"{r}.standard_normal()"), ("u", f"{r}.uniform(size=2)"),
                 ("v", f"({r}.random(3) > 0.3) * 1.0"), ("i", f"int({r}.integers(0, 3))")]
        t, draw = self.rng.choice(forms)
        return lines + self.use_draw(scope, indent, t, draw)

    def s_draw_global(self, scope, indent, nest, loop):
        """NumPy's global generator: np.random.randn(*x.shape) and friends."""
        forms = [("v", f"np.random.randn(*{self.shape_of(scope, 'v')})"),
                 ("m", f"np.random.randn(*{self.shape_of(scope, 'm')})"),
                 ("v", "np.random.rand(3)"), ("f", "np.random.randn()"),
                 ("m", "np.random.normal(size=(2, 3))"),
                 ("u", "np.random.uniform(-1.0, 1.0, size=2)"), ("i", "np.random.randint(3)")]
        if self.rng.random() < 0.1:
            return [self.pad(indent, "np.random.rand(2)")]
        t, draw = self.rng.choice(forms)
        return self.use_draw(scope, indent, t, draw)

    # -- objects and methods -----------------------------------------------------------
    def scaler(self):
        """The module's class Scaler (made once): (type its methods take and return)."""
        if "Scaler" in self.pieces:
            return self.scaler_t
        t = self.scaler_t = self.rng.choice(["f", "v"])
        inner = Scope()
        inner.vars["a"] = t
        inner.readers.append(("f", "self.k"))
        body = self.e(t, inner, 2)
        self.piece("Scaler", "class Scaler:\n"
                   "    def __init__(self, k):\n        self.k = k\n        self.calls = 0\n\n"
                   "    @staticmethod\n    def shift(a):\n        return a + 0.25\n\n"
                   f"    def scale(self, a):\n        return {body}\n\n"
                   "    def apply(self, a):\n        self.calls += 1\n"
                   "        return np.tanh(self.scale(self.shift(a))) * 0.5 + a * self.k\n")
        return t

    def s_obj_method(self, scope, indent, nest, loop):
        """OBJ.apply(...) of the module's object (its counter goes up once a call)."""
        t = self.scaler()
        self.piece("OBJ", f"OBJ = Scaler({self.rng.choice(['0.7', '1.3', '-0.4'])})")
        scope.fns["OBJ.apply"] = ([t], t)
        r = self.name("r")
        if self.rng.random() < 0.7:
            line = f"{r} = OBJ.apply({self.e(t, scope, 2)})"
        else:
            line = f"{r} = OBJ.scale({self.e(t, scope, 2)}) + OBJ.k * {self.e(t, scope, 1)}"
        scope.vars[r] = t
        return [self.pad(indent, line)]

    def s_obj_inside(self, scope, indent, nest, loop):
        """Scaler(k).apply(x), or an object made inside and called twice (its counter read)."""
        t = self.scaler()
        k = self.rng.choice(["2.0", "0.5", "1.5"])
        if self.rng.random() < 0.1 and self.ok("class_inside_diff"):
            self.used.add("class_inside_diff")          # a differentiated field (a dict: resolve_built.py)
            k = self.e("f", scope, 1)
        r = self.name("r")
        if self.rng.random() < 0.5:
            line = self.pad(indent, f"{r} = Scaler({k}).apply({self.e(t, scope, 2)})")
            scope.vars[r] = t
            return [line]
        s, r2 = self.name("obj"), self.name("r")
        lines = [self.pad(indent, f"{s} = Scaler({k})"),
                 self.pad(indent, f"{r} = {s}.apply({self.e(t, scope, 2)})"),
                 self.pad(indent, f"{r2} = {s}.apply({r} * 0.5) * ({s}.calls + 0.5)")]
        scope.vars.update({r: t, r2: t})
        return lines

    def layer_classes(self):
        """The module's classes Layer (a __call__) and Cell (a step that sets self.h), whose
        objects the function builds from differentiated values."""
        self.piece("Layer", "class Layer:\n"
                   "    def __init__(self, w, c):\n        self.w = w\n        self.c = c * 1.0\n\n"
                   "    def __call__(self, a):\n        return np.tanh(a * self.w + self.c)\n\n"
                   "    @classmethod\n    def make(cls, w, c=0.5):\n        return cls(w, c)\n")
        self.piece("Cell", "class Cell:\n"
                   "    def __init__(self, w):\n        self.w = w\n        self.h = w * 0.0\n\n"
                   "    def step(self, a):\n"
                   "        self.h = np.tanh(self.h * 0.5 + a * self.w)\n        return self.h\n")
        self.piece("use_layer", "def use_layer(m, a):\n    return m(a) * m.w + m.c\n")
        self.piece("Vec", "class Vec:\n"
                   "    def __init__(self, x):\n        self.x = x\n\n"
                   "    def __add__(self, o):\n        return Vec(self.x + o.x)\n\n"
                   "    def __sub__(self, o):\n        return Vec(self.x - o.x)\n\n"
                   "    def __rmul__(self, s):\n        return Vec(s * self.x)\n\n"
                   "    def __neg__(self):\n        return Vec(-self.x)\n\n"
                   "    def dot(self, o):\n        return np.sum(self.x * o.x)\n\n"
                   "    def scaled(self, k):\n        return type(self)(self.x * k)\n")
        self.piece("Dense", "class Dense:\n"
                   "    def __init__(self, w, c):\n        self.params = {}\n"
                   "        self.params[\"w\"] = w\n        self.params[\"c\"] = c * 1.0\n"
                   "        self.cache = {}\n\n"
                   "    def forward(self, a):\n"
                   "        z = a * self.params[\"w\"] + self.params[\"c\"]\n"
                   "        self.cache[\"z\"] = z\n        return np.tanh(z)\n\n"
                   "    def step(self, lr):\n        for name in (\"w\", \"c\"):\n"
                   "            self.params[name] = self.params[name] * (1.0 - lr)\n")
        self.piece("Chain", "class Chain:\n"
                   "    def __init__(self, first, second):\n"
                   "        self.first, self.second = first, second\n\n"
                   "    def __call__(self, a):\n        return self.second(self.first(a))\n")

    def s_itertools(self, scope, indent, nest, loop):
        """A loop over itertools' tuples of a vector's items (pairs of particles), or over
        an iterator of numbers (lowering/lower_control.py: Control.indexed_tuples)."""
        self.imports.add("itertools")
        v, r, a, b = self.e("v", scope, 2), self.name("r"), self.name("a"), self.name("b")
        form = self.rng.choice([f"itertools.combinations({v}, 2)", f"itertools.pairwise({v})",
                                f"itertools.product({v}, {v}[:2])"])
        body = f"{r} = {r} + {a} * np.sin({b})"
        if self.rng.random() < 0.3:
            form, body = "itertools.combinations(range(3), 2)", \
                f"{r} = {r} + {v}[{a}] * {v}[{b}]"
        lines = [f"{r} = 0.0", f"for {a}, {b} in {form}:", f"    {body}"]
        scope.vars[r] = "f"
        return [self.pad(indent, line) for line in lines]

    def s_walrus(self, scope, indent, nest, loop):
        """An assignment expression in an if test or a value (sugar.py moves it before)."""
        f, t, r = self.e("f", scope, 2), self.name("t"), self.name("r")
        g = self.e("f", scope, 1)
        if self.rng.random() < 0.5:
            lines = [f"{r} = {g}", f"if ({t} := {f}) > 0.1:", f"    {r} = {r} + {t} * {t}"]
        else:
            lines = [f"{r} = ({t} := {f}) * {g} + {t}"]
        scope.vars[r] = "f"
        return [self.pad(indent, line) for line in lines]

    def s_built_object(self, scope, indent, nest, loop):
        """Objects of the user's classes built inside f from differentiated values: a layer
        called, a list of layers looped over, a cell stepped in a loop, an object passed to
        a function, vectors added and scaled by operators their class defines (also stepped
        in a loop), a pair keeping two layers, a layer keeping its weights and a cache in
        dicts written item by item (resolve_built.py, resolve_returns.py, inplace_items.py)."""
        self.layer_classes()
        t = self.rng.choice(["f", "v"])
        w, c, r = self.e("f", scope, 1), self.e("f", scope, 1), self.name("r")
        x = self.e(t, scope, 2)
        form = self.rng.choice(["call", "list", "cell", "passed", "factory", "operators",
                                "stepped", "kept", "params", "params_stepped"])
        if form == "call":
            m = self.name("layer")
            lines = [f"{m} = Layer({w}, {c})", f"{r} = {m}({x}) + {m}.w"]
        elif form == "factory":         # a classmethod that builds it (resolve_factories)
            m = self.name("layer")
            lines = [f"{m} = Layer.make({w})", f"{r} = {m}({x}) * {m}.c"]
        elif form == "list":
            ms, m = self.name("layers"), self.name("layer")
            lines = [f"{ms} = [Layer({w}, {c}), Layer({c} * 0.5, {w})]", f"{r} = {x}",
                     f"for {m} in {ms}:", f"    {r} = {m}({r})"]
        elif form == "cell":
            m, i = self.name("cell"), self.name("i")
            lines = [f"{m} = Cell({w})", f"{r} = {x}",
                     f"for {i} in range(2):", f"    {r} = {m}.step({r})",
                     f"{r} = {r} + {m}.h"]
        elif form == "operators":       # methods and operators that return objects
            p, q = self.name("p"), self.name("q")
            lines = [f"{p}, {q} = Vec({x}), Vec({self.e(t, scope, 1)})",
                     f"{r} = (0.5 * ({p} + {q}) - (-{q}).scaled({w})).dot({p})"]
            t = "f"
        elif form == "stepped":         # a state of objects stepped with operators
            p, q, i = self.name("p"), self.name("q"), self.name("i")
            lines = [f"{p}, {q} = Vec({x}), Vec({x} * 0.0)", f"for {i} in range(3):",
                     f"    {q} = {q} + {w} * {p}", f"    {p} = {p} - 0.1 * {q}",
                     f"{r} = {p}.dot({q}) + {p}.dot({p})"]
            t = "f"
        elif form == "params":          # weights and a cache in dict attributes (CS231n)
            m = self.name("layer")
            lines = [f"{m} = Dense({w}, {c})", f"{r} = {m}.forward({x}) + {m}.cache[\"z\"]"]
        elif form == "params_stepped":  # their items written again by a method, in a loop
            m, i = self.name("layer"), self.name("i")
            lines = [f"{m} = Dense({w}, {c})", f"for {i} in range(2):", f"    {m}.step(0.1)",
                     f"{r} = {m}.forward({x}) * {m}.params[\"w\"]"]
        elif form == "kept":            # an object keeping the objects it was passed
            m = self.name("pair")
            lines = [f"{m} = Chain(Layer({w}, {c}), Layer({c} * 0.5, {w}))", f"{r} = {m}({x})"]
        else:
            m = self.name("layer")
            lines = [f"{m} = Layer({w}, {c})", f"{r} = use_layer({m}, {x})"]
        scope.vars[r] = t
        return [self.pad(indent, line) for line in lines]

    def s_held_state(self, scope, indent, nest, loop):
        """Differentiated values stored on module-level objects and read back in f
        (lowering/attributes.py): a stash's keep/get, a cell's state stepped straight,
        in a range loop or over an array's items, in a branch, or by a method of an object
        found where the code runs (refused, or right).  The state is set first, so each call
        of f starts from the same one."""
        self.piece("Stash", "class Stash:\n"
                   "    def keep(self, a):\n        self.a = a\n        return self\n\n"
                   "    def get(self):\n        return self.a * 2.0\n")
        self.piece("HeldCell", "class HeldCell:\n"
                   "    def __init__(self, w):\n        self.w = w\n        self.h = 0.0\n\n"
                   "    def step(self, a):\n"
                   "        self.h = np.tanh(self.h * self.w + a)\n        return self.h\n")
        self.piece("STASH", "STASH = Stash()")
        self.piece("HELD", "HELD = HeldCell(0.6)")
        t, r, i = self.rng.choice(["f", "v"]), self.name("r"), self.name("i")
        x = self.e(t, scope, 2)
        form = self.rng.choice(["stash", "straight", "range", "items", "branch", "runtime"])
        if form == "stash":
            lines = [f"STASH.keep({x})", f"{r} = STASH.get() + STASH.a"]
        elif form == "straight":
            lines = [f"HELD.h = {x} * 0.5", "HELD.step(HELD.h)", f"{r} = HELD.step({x}) * HELD.h"]
        elif form == "range":
            lines = [f"HELD.h = {x} * 0.0", f"for {i} in range(3):", f"    HELD.step({x})",
                     f"{r} = HELD.h * 1.0"]
        elif form == "items":
            v = self.e("v", scope, 2)
            lines = ["HELD.h = 0.1", f"for {i} in {v}:", f"    HELD.step({i})",
                     f"{r} = HELD.h + {x}"]
        elif form == "branch":
            lines = [f"HELD.h = {x}", f"if np.sum({self.e(t, scope, 1)}) > 0:",
                     f"    HELD.step({x})", f"{r} = HELD.h * 1.0"]
        else:       # a method of an object found where the code runs reads the store
            lines = [f"HELD.h = {x}", f"{r} = {x} * 1.0", f"for {i} in [HELD, STASH][:1]:",
                     f"    {r} = {i}.step({r})"]
        scope.vars[r] = t
        return [self.pad(indent, line) for line in lines]

    def s_item_element(self, scope, indent, nest, loop):
        """xs[k][j] = v into a dict or list of fresh arrays (min-char-rnn's one-hot), or
        z[i][j] = v of a fresh 2-D array; one item of a dict written again and in a loop;
        an item kept in two places (refused: Python changes both); then a read."""
        d, r = self.name("xs"), self.name("r")
        v, w = self.e("f", scope, 1), self.e("v", scope, 2)
        form = self.rng.choice(["dict", "list", "array", "nested", "aliased"])
        op = self.rng.choice(["=", "=", "+="])
        if form == "nested":            # one item of a dict written again, in a loop too
            i = self.name("i")
            lines = [f"{d} = {{\"p\": {{\"a\": {w} * 1.0}}, \"q\": {v}}}",
                     f"{d}[\"p\"][\"b\"] = {w} * {d}[\"q\"]",
                     f"for {i} in range(2):",
                     f"    {d}[\"p\"][\"a\"] = {d}[\"p\"][\"a\"] * {v} + {d}[\"p\"][\"b\"]",
                     f"{r} = {d}[\"p\"][\"a\"] + {d}[\"p\"][\"b\"]"]
        elif form == "aliased":         # the item in two places: Python changes both
            lines = [f"{d} = {{\"p\": {{\"a\": {w} * 1.0}}}}", f"{d}[\"q\"] = {d}[\"p\"]",
                     f"{d}[\"p\"][\"a\"] = {w} * {v}", f"{r} = {d}[\"q\"][\"a\"] + {w}"]
        elif form == "dict":
            lines = [f"{d} = {{}}", f"for k in range(2):", f"    {d}[k] = np.zeros(3)",
                     f"    {d}[k][k + 1] {op} {v}", f"{r} = {d}[0] * {w} + {d}[1]"]
        elif form == "list":
            lines = [f"{d} = [{w} * 1.0, np.ones(3)]", f"{d}[1][0] {op} {v}",
                     f"{r} = {d}[0] + {d}[1]"]
        else:
            lines = [f"{d} = np.outer({w}, {w}) * 1.0", f"{d}[1][2] {op} {v}",
                     f"{r} = {d}[1] + {d}[2]"]
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_dict_step(self, scope, indent, nest, loop):
        """Gradient steps over a dict of weights, in a loop, as tutorials write them: over
        d.items(), over d or d.keys() with -=, a comprehension, a new dict filled in a
        loop, an update rule keeping its state in a config dict per weight (changed in
        place, setdefault); and the writes Python's live view would show (another key, a
        config shared by two keys): right or refused."""
        d, r, i, k, p, c = (self.name(n) for n in ("params", "r", "i", "k", "p", "cfg"))
        f, lr = self.e("f", scope, 1), self.rng.choice(["0.1", "0.25"])
        g = f"{p} * np.tanh({f}) + 0.1"                 # a gradient of the weight
        form = self.rng.choice(["items", "keys", "iadd", "comp", "new", "rule", "other",
                                "shared"])
        lines = [f"{d} = {{\"a\": {self.e('v', scope, 2)} * 1.0, "
                 f"\"b\": {self.e('v', scope, 2)} * 1.0}}"]
        if form in ("rule", "shared"):
            self.piece("rule_step", "def rule_step(w, dw, config):\n"
                       "    config.setdefault(\"m\", 0.0 * w)\n"
                       "    config[\"m\"] = 0.9 * config[\"m\"] + dw\n"
                       "    return w - 0.1 * config[\"m\"], config\n")
            # (shared: one config for both weights, refused where the code runs)
            lines += [f"{c} = {{{k}: {{}} for {k} in {d}}}"] if form == "rule" else \
                [f"{c} = {{}}", f"{c} = {{\"a\": {c}, \"b\": {c}}}"]
        body = {"items": [f"for {k}, {p} in {d}.items():", f"    {d}[{k}] = {p} - {lr} * ({g})"],
                "keys": [f"for {k} in {d}.keys():", f"    {p} = {d}[{k}]",
                         f"    {d}[{k}] = {p} - {lr} * ({g})"],
                "iadd": [f"for {k} in {d}:", f"    {p} = {d}[{k}] * 1.0",
                         f"    {d}[{k}] -= {lr} * ({g})"],
                "comp": [f"{d} = {{{k}: {p} - {lr} * ({g}) for {k}, {p} in {d}.items()}}"],
                "new": [f"{c} = {{}}", f"for {k}, {p} in {d}.items():",
                        f"    {c}[{k}] = {p} - {lr} * ({g})", f"{d} = {c}"],
                "rule": [f"for {k}, {p} in {d}.items():",
                         f"    {d}[{k}], _ = rule_step({p}, {g}, {c}[{k}])"],
                "other": [f"for {k}, {p} in {d}.items():",        # the view shows "b" later
                          f"    {d}[\"b\"] = {d}[\"b\"] * {f} + {p}"]}
        body["shared"] = body["rule"]
        lines += [f"for {i} in range(2):"] + ["    " + line for line in body[form]]
        lines.append(f"{r} = {d}[\"a\"] * {d}[\"b\"]")
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_history(self, scope, indent, nest, loop):
        """A dict of lists appended to in a loop (Keras' History: `h["loss"].append(v)`,
        `.extend((a, b))`), then read; and the reads Python's in-place append would change
        under another name (a name bound to the list before it went in, or read out of the
        dict before the appends): right or refused."""
        h, r, i, o = self.name("hist"), self.name("r"), self.name("i"), self.name("other")
        f, v = self.e("f", scope, 1), self.e("v", scope, 2)
        form = self.rng.choice(["append", "extend", "named", "held", "held_in_loop"])
        start = f"{h} = {{\"loss\": [], \"norm\": [{v} * 0.5]}}"
        lines = [f"{o} = []", f"{h} = {{\"loss\": {o}, \"norm\": []}}"] if form == "named" \
            else [start, f"{o} = {h}[\"norm\"]"] if form == "held" else [start]
        lines += [f"for {i} in range(2):"]
        if form == "held_in_loop":
            lines += [f"    {o} = {h}[\"norm\"]"]
        lines += [f"    {h}[\"loss\"].append({v} * {f} + {i})"]
        lines += [f"    {h}[\"norm\"].extend(({v} ** 2, {f} * {i}))"] if form == "extend" \
            else [f"    {h}[\"norm\"].append(np.sin({v}) * {i})"]
        tail = f" + len({o})" if form in ("named", "held", "held_in_loop") else ""
        lines.append(f"{r} = sum({h}[\"loss\"]) * len({h}[\"norm\"]){tail}")
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_masks(self, scope, indent, nest, loop):
        """Masks combined with & | ^ ~ (a cutoff: `(r2 > a) & (r2 < b)`), `m &= ...`,
        then np.where over them; an integer's bits (`(n >> 1) | 1`)."""
        m, r, v = self.name("mask"), self.name("r"), self.e("v", scope, 2)
        lo, hi = self.rng.choice(["-0.5", "0.1"]), self.rng.choice(["0.9", "2.0"])
        op = self.rng.choice(["&", "|", "^"])
        lines = [f"{m} = ({v} > {lo}) {op} ({v} < {hi})"]
        if self.rng.random() < 0.5:
            lines.append(f"{m} &= ~np.isnan({v})")
        lines.append(f"{r} = np.where({m}, {v} * {self.e('f', scope, 1)}, {v} ** 2) * "
                     f"((3 >> 1) | 1)")
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_model_params(self, scope, indent, nest, loop):
        """An object keeping its weights in a dict attribute filled item by item, stepped
        in a loop over `model.params.items()` (or its keys) at the key the loop is on; and
        a write at another key, or the dict held by another name (refused)."""
        self.piece("param_model", "class ParamModel:\n"
                   "    def __init__(self, a, b):\n"
                   "        self.params = {}\n"
                   "        self.params[\"a\"] = a\n"
                   "        self.params[\"b\"] = b\n\n"
                   "    def loss(self):\n"
                   "        return self.params[\"a\"] * np.sin(self.params[\"b\"])\n")
        mo, r, i, k, p, o = (self.name(n) for n in ("model", "r", "i", "k", "p", "held"))
        f = self.e("f", scope, 1)
        form = self.rng.choice(["items", "keys", "items", "other", "held"])
        lines = [f"{mo} = ParamModel({self.e('v', scope, 2)} * 1.0, "
                 f"{self.e('v', scope, 2)} * 1.0)"]
        if form == "held":
            lines.append(f"{o} = {mo}.params")
        lines.append(f"for {i} in range(2):")
        if form == "keys":
            lines += [f"    for {k} in {mo}.params.keys():",
                      f"        {mo}.params[{k}] = {mo}.params[{k}] - 0.1 * np.tanh({f})"]
        else:
            key = "\"b\"" if form == "other" else k
            lines += [f"    for {k}, {p} in {mo}.params.items():",
                      f"        {mo}.params[{key}] = {p} - 0.1 * np.tanh({p} * {f})"]
        tail = f" + {o}[\"a\"]" if form == "held" else ""
        lines.append(f"{r} = {mo}.loss(){tail}")
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_fancy_copy(self, scope, indent, nest, loop):
        """c = z[range(2), [0, 2]] (a copy), then z changed in place, then both read."""
        z, c, r = self.name("z"), self.name("c"), self.name("r")
        lines = [f"{z} = np.outer({self.e('v', scope, 2)}, np.ones(3)) * 1.0",
                 f"{c} = {z}[{self.rng.choice(['range(2)', 'np.arange(2)', '[0, 1]'])}, [0, 2]]",
                 f"{z} -= {self.e('f', scope, 1)}", f"{r} = np.sum({z}, axis=0) * {c}[1]"]
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_namedtuple(self, scope, indent, nest, loop):
        """A namedtuple type (made inside or at module level) holding differentiated values."""
        ta, tb = self.rng.choice(["f", "v"]), self.rng.choice(["f", "v", "m"])
        lines, has_c = [], False
        form = self.rng.random()
        if form < 0.6 and self.ok("namedtuple_inside"):
            self.used.add("namedtuple_inside")      # the type made inside f
            P = self.name("P")
            if form < 0.35:
                lines.append(self.pad(indent, f'{P} = collections.namedtuple("{P}", "a b")'))
            else:
                has_c = True
                lines.append(self.pad(indent, f'{P} = collections.namedtuple("{P}", '
                                              f'["a", "b", "c"], defaults=(0.5,))'))
        elif form < 0.8:
            P, has_c = "Triple", True
            self.piece("Triple", 'Triple = collections.namedtuple("Triple", ["a", "b", "c"], '
                       'defaults=(0.5,))')
        else:
            P = "Pair"
            self.piece("Pair", 'Pair = collections.namedtuple("Pair", "a b")')
        self.imports.add("collections")
        p = self.name("p")
        call = self.rng.choice([f"{P}({self.e(ta, scope, 2)}, {self.e(tb, scope, 2)})",
                                f"{P}({self.e(ta, scope, 2)}, b={self.e(tb, scope, 2)})"])
        lines.append(self.pad(indent, f"{p} = {call}"))
        scope.readers += [(ta, f"{p}.a"), (tb, f"{p}.b"), (ta, f"{p}[0]")]
        if has_c:
            scope.readers.append(("f", f"{p}.c"))
        roll = self.rng.random()
        if roll < 0.3 and not (has_c and not self.ok("namedtuple_unpack")):
            if has_c:
                self.used.add("namedtuple_unpack")      # q, w, _ = p of three fields
            q, w = self.name("q"), self.name("w")
            lines.append(self.pad(indent, f"{q}, {w}{', _' if has_c else ''} = {p}"))
            scope.vars.update({q: ta, w: tb})
        elif roll < 0.5:
            p2 = self.name("p")
            lines.append(self.pad(indent, f"{p2} = {p}._replace(b={self.e(tb, scope, 2)})"))
            scope.readers.append((tb, f"{p2}.b"))
        return lines

    def s_dataclass(self, scope, indent, nest, loop):
        """A dataclass of constant fields built inside, its method called."""
        self.piece("Config", "@dataclasses.dataclass\nclass Config:\n    l2: float\n"
                   "    power: int = 2\n\n    def penalty(self, w):\n"
                   "        return self.l2 * np.sum(w ** self.power)\n", ("dataclasses",))
        c, r = self.name("cfg"), self.name("r")
        made = self.rng.choice(["Config(0.3)", "Config(0.1, power=3)", "Config(l2=0.2, power=1)",
                                "Config(0.05, 4)"])
        t = self.rng.choice(["f", "v", "m"])
        lines = [self.pad(indent, f"{c} = {made}"),
                 self.pad(indent, f"{r} = {c}.penalty({self.e(t, scope, 2)}) + {c}.l2 * "
                                  f"{self.e('f', scope, 1)}")]
        scope.vars[r] = "f"
        return lines

    def bound_method_program(self, scope, params, body):
        """The module text of f as a bound method: class Model with a counter, a helper
        method (scope.fns['self.scale']) and k (a reader), MODEL = Model(k), f = MODEL.fun."""
        sig = ", ".join(["self"] + [p for p, _ in params])
        method = "\n".join("    " + ln if ln.strip() else ln for ln in body)
        return ("class Model:\n    def __init__(self, k):\n        self.k = k\n"
                "        self.calls = 0\n\n"
                f"    def scale(self, a):\n        return {self.model_scale}\n\n"
                f"    def fun({sig}):\n        self.calls += 1\n{method}\n\n\n"
                f"MODEL = Model({self.rng.choice(['0.6', '1.2', '-0.8'])})\nf = MODEL.fun\n")

    def bound_method_scope(self, scope):
        """Before f's body is written: what a method reads from self."""
        t = self.rng.choice(["f", "v"])
        inner = Scope()
        inner.vars["a"] = t
        inner.readers.append(("f", "self.k"))
        self.model_scale = self.e(t, inner, 2)
        scope.readers.append(("f", "self.k"))
        scope.fns["self.scale"] = ([t], t)

    # -- strings ---------------------------------------------------------------------------
    def s_fstring(self, scope, indent, nest, loop):
        """A message made of differentiated values: f-strings with specs, format, %."""
        pre_a, a = self.plain(scope, "f")
        pre_v, v = self.plain(scope, self.rng.choice(["v", "m"]))
        m = self.name("msg")
        form = self.strings([f'f"loss {{{a}:.3f}}"', f'f"{{{v}!r}}"',
                                f'f"at {{{a}:>10.4g}}, {{{v}}}"', f'"{{:.2f}}".format({a})',
                                f'"{{}} and {{}}".format({a}, {v})', f'"value=%.3f" % {a}',
                                f'"n=%d, s=%s" % (len({v}), {a})', f'f"{{{a}!r:>12}} {{{a}:+.2e}}"',
                                f'"loss " + str({a})'])
        lines = [self.pad(indent, ln) for ln in pre_a + pre_v]
        lines.append(self.pad(indent, f"{m} = {form}"))
        if self.rng.random() < 0.5 and self.ok("print"):
            self.used.add("print")
            lines.append(self.pad(indent, f"print({m})"))
        return lines

    def s_print(self, scope, indent, nest, loop):
        """print(...) of differentiated values (the oracle captures it)."""
        pre_a, a = self.plain(scope, "f")
        pre_v, v = self.plain(scope, "v")
        call = self.strings([f'print(f"step {{{a}:.4f}}", {v}.shape)', f'print("value:", {a})',
                             f'print("{{:.3e}}".format({a}), end="\\n")',
                             f'print({v}, sep=", ")', f'print(f"{{{v}!r}} -> {{{a}:.2f}}")'])
        return [self.pad(indent, ln) for ln in pre_a + pre_v] + [self.pad(indent, call)]

    def s_dead_string(self, scope, indent, nest, loop):
        """A message built (or an error raised) in a branch that never runs."""
        pre_a, a = self.plain(scope, "f")
        pre_v, v = self.plain(scope, "v")
        ints = [n for n in scope.of("i") if n in scope.params]
        m = self.name("msg")
        forms = [(f"if not np.all(np.isfinite({v})):",
                  [f'raise ValueError(f"not finite: {{{v}!r}}")']),
                 ("if False:", [f'print(f"never {{{a}}}")']),
                 ("if False:", [f'{m} = f"never {{{a}:.2f}}"']),
                 (f"if len({v}) > 5:", [f'{m} = "{{}} is long".format({v})', f'print({m})'])]
        if ints:
            n = self.rng.choice(ints)
            forms.append((f"if {n} < 0:", [f'raise ValueError("negative count {{}}: '
                                           f'{{:.2f}}".format({n}, {a}))']))
        if not self.ok("print"):
            forms = [fm for fm in forms if "print(" not in str(fm)]
        head, body = self.strings(forms)
        return [self.pad(indent, ln) for ln in pre_a + pre_v] + [self.pad(indent, head)] + \
            [self.pad(indent + 1, ln) for ln in body]

    def s_str_switch(self, scope, indent, nest, loop):
        """A string that chooses what runs: compared, a method of it, or a dict key."""
        t = self.rng.choice(["f", "v", "m"])
        mode, r = self.name("mode"), self.name("r")
        choice = self.rng.choice(['"tanh"', '"sin"', '"none"'])
        if self.rng.random() < 0.4:
            choice = f'"tanh" if {self.e("b", scope, 1)} else "sin"'
        lines = [self.pad(indent, f"{mode} = {choice}")]
        form = self.rng.randrange(4)
        arg = self.e(t, scope, 2)
        if form == 3:                   # a match statement (transforms/frontend/sugar.py)
            self.used.add("match")
            lines += [self.pad(indent, f"match {mode}:"),
                      self.pad(indent + 1, 'case "tanh":'),
                      self.pad(indent + 2, f"{r} = np.tanh({arg})"),
                      self.pad(indent + 1, 'case "sin" | "cos":'),
                      self.pad(indent + 2, f"{r} = np.sin({arg}) * 2.0"),
                      self.pad(indent + 1, "case _:"),
                      self.pad(indent + 2, f"{r} = {arg} * 0.5")]
        elif form == 0:
            lines += [self.pad(indent, f'if {mode} == "tanh":'),
                      self.pad(indent + 1, f"{r} = np.tanh({arg})"),
                      self.pad(indent, f'elif {mode} == "sin":'),
                      self.pad(indent + 1, f"{r} = np.sin({arg}) * 2.0"),
                      self.pad(indent, "else:"),
                      self.pad(indent + 1, f"{r} = {arg} * 0.5")]
        elif form == 1:
            lines += [self.pad(indent, f'if {mode}.startswith("ta") or {mode}.upper() == "SIN":'),
                      self.pad(indent + 1, f"{r} = np.cos({arg})"),
                      self.pad(indent, "else:"),
                      self.pad(indent + 1, f"{r} = {arg} * 0.3")]
        else:
            self.used.add("fn_container")
            lines.append(self.pad(indent, f'{r} = {{"tanh": np.tanh, "sin": np.sin, "none": '
                                          f'np.negative}}[{mode}]({arg})'))
        scope.vars[r] = t
        return lines

    # -- sequences ---------------------------------------------------------------------------
    def s_tuple_concat(self, scope, indent, nest, loop):
        """t + (x,), (x,) + t, t grown from () in a loop, and a, *rest = t."""
        t = self.rng.choice(["f", "v"])
        tp, tp2 = self.name("tp"), self.name("tp")
        cat = self.rng.choice([f"{tp} + ({self.e(t, scope, 2)},)",
                               f"({self.e(t, scope, 2)},) + {tp}", f"{tp} + {tp}"])
        lines = [self.pad(indent, f"{tp} = ({self.e(t, scope, 2)}, {self.e(t, scope, 2)})"),
                 self.pad(indent, f"{tp2} = {cat}")]
        if self.rng.random() < 0.35:        # grown from () in a loop: ()'s zero coefficient
            k = self.name("k")
            lines = [self.pad(indent, f"{tp2} = ()"),
                     self.pad(indent, f"for {k} in range(2):"),
                     self.pad(indent + 1, f"{tp2} = {tp2} + ({self.e(t, scope, 2)},)")]
        scope.readers += [(t, f"{tp2}[-1]"), (t, f"{tp2}[0]")]
        if self.ok("builtin_sum"):
            scope.readers.append((t, f"sum({tp2})"))
        if self.rng.random() < 0.3:
            h, rest = self.name("hd"), self.name("rest")
            lines.append(self.pad(indent, f"{h}, *{rest} = {tp2}"))
            scope.vars[h] = t
            scope.lists[rest] = t
            scope.readers.append((t, f"{rest}[-1]"))
        return lines

    def s_list_concat(self, scope, indent, nest, loop):
        """[a] + rest + [b] where rest grows under a condition (a run-time length)."""
        t = self.rng.choice(["f", "f", "v"])
        rest, items = self.name("rest"), self.name("items")
        grow = self.rng.choice([f"{rest}.append({self.e(t, scope, 2)})",
                                f"{rest} += [{self.e(t, scope, 2)}]"])
        if "+=" in grow:
            if not self.ok("list_iadd"):
                grow = f"{rest}.append({grow.split('+= [', 1)[1][:-1]})"
            else:
                self.used.add("list_iadd")
        lines = [self.pad(indent, f"{rest} = [{self.e(t, scope, 2)}, {self.e(t, scope, 2)}]"),
                 self.pad(indent, f"if {self.e('b', scope, 1)}:"), self.pad(indent + 1, grow)]
        a, b = self.e(t, scope, 1), self.e(t, scope, 1)
        lines.append(self.pad(indent, f"{items} = " + self.rng.choice(
            [f"[{a}] + {rest} + [{b}]", f"{rest} + [{b}]", f"[{a}] + {rest}"])))
        scope.lists[items] = t
        scope.readers += [(t, f"{items}[-1]"), (t, f"{items}[0]")]
        if self.ok("builtin_sum"):
            scope.readers.append((t, f"sum({items})"))
        scope.readers.append(("f", f"np.sum(np.stack({items}))" if t == "v"
                              else f"np.sum(np.array({items}))"))
        if self.rng.random() < 0.3:
            k = self.name("k")
            lines.append(self.pad(indent, f"{k} = len({items}) - 2"))
            scope.vars[k] = "i"
        return lines

    def s_star_call(self, scope, indent, nest, loop):
        """h(*t) / h(a, *t) / h(*[a, b]) for a nested def with fixed parameters."""
        t = self.rng.choice(["f", "v"])
        n = self.rng.choice([2, 3])
        h = self.name("h")
        ps = [self.name("p") for _ in range(n)]
        inner = scope.child()
        inner.vars.update({p: t for p in ps})
        body = " + ".join(f"{self.e(t, inner, 1)} * {p}" for p in ps)
        tp, r = self.name("tp"), self.name("r")
        lines = [self.pad(indent, f"def {h}({', '.join(ps)}):"),
                 self.pad(indent + 1, f"return {body}")]
        if n == 2:
            lines.append(self.pad(indent, f"{tp} = ({self.e(t, scope, 2)}, "
                                          f"{self.e(t, scope, 2)})"))
            call = self.rng.choice([f"{h}(*{tp})", f"{h}(*{tp}[::-1])"])
        else:
            lines.append(self.pad(indent, f"{tp} = [{self.e(t, scope, 2)}, "
                                          f"{self.e(t, scope, 2)}]"))
            call = self.rng.choice([f"{h}({self.e(t, scope, 1)}, *{tp})",
                                    f"{h}(*{tp}, {self.e(t, scope, 1)})",
                                    f"{h}(*({self.e(t, scope, 1)},), *{tp})"])
        lines.append(self.pad(indent, f"{r} = {call}"))
        scope.fns[h] = ([t] * n, t)
        scope.vars[r] = t
        return lines

    def s_zip_star(self, scope, indent, nest, loop):
        """firsts, seconds = zip(*pairs)."""
        t = self.rng.choice(["f", "v"])
        pairs, fs, ss = self.name("pairs"), self.name("firsts"), self.name("seconds")
        if t == "f" and self.rng.random() < 0.5:
            a, b = self.name("a"), self.name("b")
            made = f"[({a}, {b} * 2.0) for {a}, {b} in zip({self.e('v', scope, 1)}, " \
                   f"{self.e('v', scope, 1)})]"
        else:
            made = "[" + ", ".join(f"({self.e('f', scope, 1)}, {self.e(t, scope, 1)})"
                                   for _ in range(3)) + "]"
        lines = [self.pad(indent, f"{pairs} = {made}"),
                 self.pad(indent, f"{fs}, {ss} = zip(*{pairs})")]
        scope.readers += [("f", f"{fs}[0]"), (t, f"{ss}[-1]"), ("v", f"np.array({fs})")]
        if self.ok("builtin_sum"):
            scope.readers += [("f", f"sum({fs})"), (t, f"sum({ss})")]
        return lines

    def s_map(self, scope, indent, nest, loop):
        """list(map(fn, xs)), sum(map(...)), map of two sequences."""
        t = self.rng.choice(["f", "v"])
        xs = self.seq_of(scope, t)
        fn = self.unary_fn(scope, t)
        r = self.name("vals")
        roll = self.rng.random()
        if roll < 0.5:
            scope.lists[r] = t
            scope.readers += [(t, f"{r}[0]"), (t, f"{r}[-1]")]
            return [self.pad(indent, f"{r} = list(map({fn}, {xs}))")]
        if roll < 0.8 or not self.ok("lambda"):
            line = f"{r} = sum(map({fn}, {xs}))"
        else:
            line = f"{r} = sum(map(lambda a, b: a * np.tanh(b), {xs}, {self.seq_of(scope, t)}))"
        scope.vars[r] = t
        return [self.pad(indent, line)]

    def s_partial(self, scope, indent, nest, loop):
        """functools.partial of a nested def (or of operator.mul), mapped or called."""
        self.imports.add("functools")
        t = self.rng.choice(["f", "v"])
        p, r = self.name("part"), self.name("r")
        lines = []
        if self.rng.random() < 0.3:
            self.imports.add("operator")
            lines.append(self.pad(indent, f"{p} = functools.partial(operator.mul, "
                                          f"{self.e('f', scope, 1)})"))
        else:
            g, c, e = self.name("g"), self.name("c"), self.name("p")
            inner = scope.child()
            inner.vars.update({c: "f", e: t})
            lines += [self.pad(indent, f"def {g}({c}, {e}):"),
                      self.pad(indent + 1, f"return {self.e(t, inner, 2)} * {c} + {e}")]
            if self.rng.random() < 0.7:
                lines.append(self.pad(indent, f"{p} = functools.partial({g}, "
                                              f"{self.e('f', scope, 1)})"))
            else:           # the array argument by keyword, the number given at the call
                lines.append(self.pad(indent, f"{p} = functools.partial({g}, "
                                              f"{e}={self.e(t, scope, 1)})"))
                lines.append(self.pad(indent, f"{r} = {p}({self.e('f', scope, 1)})"))
                scope.vars[r] = t
                return lines
        calls = [f"{p}({self.e(t, scope, 2)})"]
        if self.ok("map"):
            calls.append(f"sum(map({p}, {self.seq_of(scope, t)}))")
        call = self.rng.choice(calls)
        lines.append(self.pad(indent, f"{r} = {call}"))
        scope.vars[r] = t
        return lines

    def s_functools_reduce(self, scope, indent, nest, loop):
        """functools.reduce over a list (with a lambda, operator.add/mul, an initial value)."""
        self.imports.add("functools")
        t = self.rng.choice(["f", "v"])
        xs = self.seq_of(scope, t)
        forms = [f"functools.reduce(operator.add, {xs}, {self.e(t, scope, 1)})",
                 f"functools.reduce(operator.mul, {xs})"]
        if self.ok("lambda"):
            forms += [f"functools.reduce(lambda a, b: a * 0.5 + b, {xs})",
                      f"functools.reduce(lambda a, b: np.tanh(a) * b + a, {xs})"]
        call = self.rng.choice(forms)
        if "operator." in call:
            self.imports.add("operator")
        r = self.name("r")
        scope.vars[r] = t
        return [self.pad(indent, f"{r} = {call}")]

    GENERATORS = {
        "scaled_terms": "def scaled_terms(xs, c):\n    for i, x in enumerate(xs):\n"
                        "        if i > 1:\n            return\n        yield x * c ** i",
        "neighbour_products": "def neighbour_products(xs, c):\n"
                              "    for a, b in zip(xs[:-1], xs[1:]):\n        yield a * b + c",
        "tanh_terms": "def tanh_terms(xs, c):\n    yield from (np.tanh(x) * c for x in xs)\n"
                      "    yield xs[0] - c",
    }

    def s_generator(self, scope, indent, nest, loop):
        """A module-level generator function, read by sum, list or a for loop."""
        t = self.rng.choice(["f", "v"])
        gen = self.rng.choice(sorted(self.GENERATORS))
        self.piece(gen, self.GENERATORS[gen])
        call = f"{gen}({self.seq_of(scope, t)}, {self.e('f', scope, 1)})"
        r = self.name("r")
        roll = self.rng.random()
        if roll < 0.4:
            scope.vars[r] = t
            return [self.pad(indent, f"{r} = sum({call})")]
        if roll < 0.7:
            scope.lists[r] = t
            scope.readers += [(t, f"{r}[0]"), (t, f"{r}[-1]")]
            return [self.pad(indent, f"{r} = list({call})")]
        item = self.name("g")
        zero = "0.0" if t == "f" else "np.zeros(3)"
        scope.vars[r] = t
        return [self.pad(indent, f"{r} = {zero}"),
                self.pad(indent, f"for {item} in {call}:"),
                self.pad(indent + 1, f"{r} = {r} * 0.5 + np.sin({item})")]

    def s_filter(self, scope, indent, nest, loop):
        """kept = list(filter(lambda e: e > c, xs)); sum(kept) and len(kept)."""
        if not self.ok("lambda"):
            return None
        t = self.rng.choice(["f", "f", "v"])
        xs = self.seq_of(scope, t)
        c = self.rng.choice(["0.1", "-0.2", self.e("f", scope, 1)])
        test = f"e > {c}" if t == "f" else f"np.sum(e) > {c}"
        kept, r = self.name("kept"), self.name("r")
        zero = "0.0" if t == "f" else "np.zeros(3)"
        lines = [self.pad(indent, f"{kept} = list(filter(lambda e: {test}, {xs}))"),
                 self.pad(indent, f"{r} = sum({kept}, {zero}) + {self.e(t, scope, 1)}")]
        scope.vars[r] = t
        if self.rng.random() < 0.3:
            k = self.name("k")
            lines.append(self.pad(indent, f"{k} = len({kept})"))
            scope.vars[k] = "i"
        return lines

    def s_sorted_key(self, scope, indent, nest, loop):
        """sorted(pairs, key=operator.itemgetter(0)), max(pairs, key=lambda ...), sorted(xs)."""
        t = self.rng.choice(["f", "v"])
        pairs, r = self.name("pairs"), self.name("r")
        made = "[" + ", ".join(f"({self.e('f', scope, 1)}, {self.e(t, scope, 1)})"
                               for _ in range(3)) + "]"
        forms = [f"sorted({pairs}, key=operator.itemgetter(0))[0][1]",
                 f"sorted({pairs}, key=operator.itemgetter(0), reverse=True)[-1][1]"]
        if self.ok("lambda"):
            forms += [f"max({pairs}, key=lambda q: q[0])[1]",
                      f"min({pairs}, key=lambda q: abs(q[0]))[1]"]
        read = self.rng.choice(forms)
        if "operator." in read:
            self.imports.add("operator")
        lines = [self.pad(indent, f"{pairs} = {made}"), self.pad(indent, f"{r} = {read}")]
        scope.vars[r] = t
        if self.rng.random() < 0.3:
            r2 = self.name("r")
            lines.append(self.pad(indent, f"{r2} = sorted({self.seq_of(scope, 'f')})[-1]"))
            scope.vars[r2] = "f"
        return lines

    def s_zeros_star(self, scope, indent, nest, loop):
        """z = np.zeros(*x.shape) (or ones, of a shape tuple), then written."""
        z = self.name("z")
        shape = self.shape_of(scope, "v")
        lines = [self.pad(indent, f"{z} = np.{self.rng.choice(['zeros', 'ones'])}(*{shape})")]
        lines.append(self.pad(indent, self.rng.choice([
            f"{z}[{self.rng.randrange(3)}] = {self.e('f', scope, 2)}",
            f"{z} += {self.e('v', scope, 2)}", f"{z}[1:] = {self.e('v', scope, 1)}[:2]",
            f"{z} *= {self.e('f', scope, 1)}"])))
        scope.vars[z] = "v"
        scope.fresh.add(z)
        return lines

    # -- functions in containers ------------------------------------------------------------
    def s_fn_container(self, scope, indent, nest, loop):
        """Functions in a list, a dict or a module tuple: looped over, indexed by a
        constant, an int or the data, lambdas with loop defaults."""
        t = self.rng.choice(["f", "v", "m"])
        r = self.name("r")
        lam = [f"lambda e: e * {self.e('f', scope, 1)}"] if self.ok("lambda") else []
        local = [n for n, (a, rt) in scope.fns.items() if a == [t] and rt == t and
                 n.isidentifier()]
        fns = ["np.tanh", "np.sin"] + lam + local[:1]
        form = self.rng.randrange(6)
        if form == 0 or form == 1 and not local and not lam:
            g = self.name("g")
            src = "[" + ", ".join(fns) + "]"
            if self.rng.random() < 0.3:
                self.piece("ACTS", "ACTS = (np.tanh, np.sin, np.arctan)")
                src = "ACTS"
            lines = [self.pad(indent, f"{r} = {self.e(t, scope, 2)}"),
                     self.pad(indent, f"for {g} in {src}:"),
                     self.pad(indent + 1, f"{r} = {g}({r}) * 0.5 + {self.e(t, scope, 1)}")]
        elif form == 1:
            fs = self.name("fs")
            ints = scope.of("i")
            idx = self.rng.choice([str(self.rng.randrange(len(fns))), "-1"] +
                                  [f"{n} % {len(fns)}" for n in ints])
            lines = [self.pad(indent, f"{fs} = [{', '.join(fns)}]"),
                     self.pad(indent, f"{r} = {fs}[{idx}]({self.e(t, scope, 2)})")]
        elif form == 2:
            ops = self.name("ops")
            second = lam[0] if lam else "np.cos"
            lines = [self.pad(indent, f"{ops} = {{'a': np.tanh, 'b': {second}}}"),
                     self.pad(indent, f"{r} = {ops}['b']({self.e(t, scope, 2)}) + "
                                      f"{ops}['a']({self.e(t, scope, 1)})")]
        elif form == 3 and self.ok("lambda"):
            fs, i = self.name("fs"), self.name("i")
            lines = [self.pad(indent, f"{fs} = [lambda e, {i}={i}: e * ({i} + 1.0) for {i} in "
                                      f"range(3)]"),
                     self.pad(indent, f"{r} = {fs}[2]({self.e(t, scope, 2)}) + "
                                      f"{fs}[1]({self.e(t, scope, 1)})")]
        elif form == 4:
            lines = [self.pad(indent, f"{r} = [np.tanh, np.sin][int(np.argmax("
                                      f"{self.e('u', scope, 1)}))]({self.e(t, scope, 2)})")]
        else:
            self.piece("ACTS", "ACTS = (np.tanh, np.sin, np.arctan)")
            lines = [self.pad(indent, f"{r} = ACTS[-1]({self.e(t, scope, 2)}) + "
                                      f"ACTS[{self.rng.randrange(3)}]({self.e(t, scope, 1)})")]
        scope.vars[r] = t
        return lines
