"""Statements of the real-code fuzzer that hand the user's function to NumPy or choose one
by name: np.apply_along_axis, np.vectorize (a decorated module-level function, one held in
a global, one made at the call), getattr(np, name) with a constant or a global string,
a list reversed or sorted in place (lst.reverse(), lst.sort(reverse=...)), an array sorted
(x.sort(), along an axis) or filled (x.fill(v)) in place; lists grouped in a dict
(`d.setdefault(k, []).append(v)`, a defaultdict) handed to NumPy's functions (np.max(g):
NumPy's asarray of a list); a scipy.sparse operator made from constants applied to a
vector (L @ v, L.dot(v), v @ L, L.T @ v, spsolve(I - c L, v)), as PDE code applies one; a
ufunc written into an array where a mask allows (np.divide(a, b, out=..., where=...)).

A mixin of Gen (gen.py), as gen_real.py's statements are; each function is smooth where
the oracle probes it (no branch, no kink), so finite differences judge it.
"""

# (weight, construct, method); GenConfig.real_code scales the weights
CALL_STATEMENTS = [
    (0.6, "apply_along_axis", "s_apply_along_axis"), (0.6, "vectorize", "s_vectorize"),
    (0.6, "getattr_name", "s_getattr_name"), (0.5, "list_reverse", "s_list_reverse"),
    (0.5, "sort_in_place", "s_sort_in_place"),
]
# statements drawn only where real_code is above 1 (weight times real_code - 1): CI's
# campaigns (real_code 1) keep the programs their seed drew before these were written
HEAVY_STATEMENTS = [(0.4, "grouping", "s_grouping"), (0.3, "sparse_operator", "s_sparse_operator"),
                    (0.3, "masked_ufunc", "s_masked_ufunc")]


class NumpyCallStatements:
    """s_* methods for NumPy's functions of functions and functions chosen by name."""

    def s_apply_along_axis(self, scope, indent, nest, loop):
        """np.apply_along_axis of a (2, 3) matrix: a number or a vector per slice."""
        m, r = self.e("m", scope, 2), self.name("r")
        c = self.e("f", scope, 1)
        axis = self.rng.choice([0, 1, -1])
        along = "v" if axis == 0 else "u"           # the slices' type, and a number each
        fns = [("np.sum", "f"), ("np.linalg.norm", "f")]
        if self.ok("lambda"):
            fns += [(f"lambda w: np.sum(w * w) * {c}", "f"),
                    (f"lambda w: np.tanh(w) * {c} + w[0]", along),
                    ("lambda w: np.cumsum(w) * w", along)]
        fn, out = self.rng.choice(fns)
        if fn == "np.linalg.norm":                  # (not at 0: a kink)
            m = f"({m}) ** 2 + 0.5"
        kind = {"f": "v" if axis == 0 else "u"}.get(out, "m")
        scope.vars[r] = kind
        return [self.pad(indent, f"{r} = np.apply_along_axis({fn}, {axis}, {m})")]

    def s_vectorize(self, scope, indent, nest, loop):
        """np.vectorize: a decorated module-level function, one held in a global, or one
        made at the call (of one or two arrays, or an array and a number)."""
        t = self.rng.choice(["f", "v", "m"])
        r = self.name("r")
        form = self.rng.randrange(3)
        if form == 1 and not self.ok("lambda"):     # (its global holds a lambda)
            form = 0
        if form == 0:
            self.piece("bump", "@np.vectorize\ndef bump(t):\n    s = math.tanh(t)\n"
                               "    return s * math.exp(-0.5 * t * t) + 0.1 * t")
            call = f"bump({self.e(t, scope, 2)})"
        elif form == 1:
            self.piece("SCALE", "SCALE = np.vectorize(lambda a, b: a * math.exp(0.3 * b), "
                                "otypes=[float])")
            call = f"SCALE({self.e(t, scope, 2)}, {self.e(self.rng.choice([t, 'f']), scope, 1)})"
        else:
            fn = "lambda a: math.sin(a) * a" if self.ok("lambda") else "math.atan"
            call = f"np.vectorize({fn})({self.e(t, scope, 2)})"
        scope.vars[r] = t
        return [self.pad(indent, f"{r} = {call}")]

    def s_getattr_name(self, scope, indent, nest, loop):
        """A NumPy function chosen by its name: a constant, or a global string."""
        t = self.rng.choice(["f", "v", "m"])
        r = self.name("r")
        if self.rng.random() < 0.5:
            self.piece("ACTIVATION", 'ACTIVATION = "tanh"')
            name = "ACTIVATION"
        else:
            name = repr(self.rng.choice(["sin", "cos", "arctan"]))
        if self.rng.random() < 0.5:
            act = self.name("act")
            lines = [self.pad(indent, f"{act} = getattr(np, {name})"),
                     self.pad(indent, f"{r} = {act}({self.e(t, scope, 2)}) * 0.5")]
        else:
            lines = [self.pad(indent, f"{r} = getattr(np, {name})({self.e(t, scope, 2)})")]
        scope.vars[r] = t
        return lines

    def s_list_reverse(self, scope, indent, nest, loop):
        """A list of values reversed in place, then read by position."""
        t = self.rng.choice(["f", "v"])
        xs, r = self.name("xs"), self.name("r")
        items = ", ".join(self.e(t, scope, 1) for _ in range(3))
        scope.vars[r] = t
        return [self.pad(indent, f"{xs} = [{items}]"), self.pad(indent, f"{xs}.reverse()"),
                self.pad(indent, f"{r} = {xs}[0] * 2.0 + {xs}[-1]")]

    def s_sort_in_place(self, scope, indent, nest, loop):
        """An array sorted in place (along an axis of a matrix) or filled with a number, or
        a list of values sorted in place, then read by position."""
        r, form = self.name("r"), self.rng.randrange(3)
        if form == 2:
            xs = self.name("xs")
            items = ", ".join(self.e("f", scope, 1) for _ in range(3))
            scope.vars[r] = "f"         # (after the items: they do not read r)
            return [self.pad(indent, f"{xs} = [{items}]"),
                    self.pad(indent, f"{xs}.sort(reverse={self.rng.random() < 0.5})"),
                    self.pad(indent, f"{r} = {xs}[0] * 2.0 + {xs}[-1]")]
        t = self.rng.choice(["v", "m"])
        first = self.pad(indent, f"{r} = ({self.e(t, scope, 2)}) * 1.0")
        if form == 1:
            fill = self.pad(indent, f"{r}.fill({self.e('f', scope, 1)})")
            scope.vars[r] = t
            return [first, fill]
        scope.vars[r] = t
        axis = self.rng.choice(["", "axis=0", "-1"]) if t == "m" else ""
        return [first, self.pad(indent, f"{r}.sort({axis})")]

    def s_grouping(self, scope, indent, nest, loop):
        """Grouping as Python code writes it: `d.setdefault(k, []).append(v)`, a
        defaultdict(list) appended to or a defaultdict(float) added to, then read through
        d.values() / d.items() by NumPy functions of the lists (np.max(g), np.mean(g):
        NumPy's asarray of a list) or sorted(enumerate(...)); one form keeps a list read
        out before the appends (Python's append shows there: right or refused)."""
        d, r, i, g, k, kept = (self.name(p) for p in ("groups", "r", "i", "g", "k", "kept"))
        v = self.e("v", scope, 2)
        form = self.rng.choice(["setdefault", "defaultdict", "counts", "kept"])
        item = f"({v})[{i}] * {self.e('f', scope, 1)}"
        key = f"{i} % 2"
        if form in ("defaultdict", "counts"):
            self.imports.add("collections")
        lines = {"setdefault": [f"{d} = {{}}", f"for {i} in range(3):",
                                f"    {d}.setdefault({key}, []).append({item})"],
                 "defaultdict": [f"{d} = collections.defaultdict(list)",
                                 f"for {i} in range(3):", f"    {d}[{key}].append({item})"],
                 "counts": [f"{d} = collections.defaultdict(float)",
                            f"for {i} in range(3):", f"    {d}[{key}] += {item}"],
                 "kept": [f"{d} = {{0: [], 1: []}}", f"{kept} = {d}[0]",
                          f"for {i} in range(3):", f"    {d}[{key}].append({item})"]}[form]
        fn = self.rng.choice(["np.max", "np.mean", "np.min", "sum", "np.prod"])
        if form == "counts":
            read = f"sum({g} * ({k} + 1) for {k}, {g} in {d}.items())"
        else:
            read = self.rng.choice([
                f"sum({fn}({g}) for {g} in {d}.values())",
                f"sum(({k} + 1) * {fn}({g}) for {k}, {g} in {d}.items())",
                f"sorted(enumerate({d}[0]), key=lambda p: -p[1])[0][1] + {fn}({d}[1])"
                if self.ok("lambda") else f"{fn}({d}[0]) * len({d})"])
        if form == "kept":
            read += f" + sum({kept})"
        lines.append(f"{r} = {read}")
        scope.vars[r] = "f"
        return [self.pad(indent, line) for line in lines]

    def s_sparse_operator(self, scope, indent, nest, loop):
        """A second-difference operator on the 3 entries of a vector, built as scipy.sparse
        (scaled by a constant: SciPy's arithmetic, no derivative), applied as PDE code
        applies one; a derivative into the matrix itself is never drawn."""
        op, r = self.name("L"), self.name("r")
        v = self.e("v", scope, 2)
        self.imports.add("scipy.sparse.linalg")
        fmt = self.rng.choice(["csc", "csr", "dia"])
        scale = self.rng.choice(["0.5", "2.0 / 3.0", "-1.5"])
        lines = [f"{op} = scipy.sparse.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(3, 3), "
                 f"format={fmt!r}) * {scale}"]
        apply = self.rng.choice([
            f"{op} @ ({v})", f"{op}.dot({v})", f"({v}) @ {op}", f"{op}.T @ ({v})",
            f"scipy.sparse.linalg.spsolve(scipy.sparse.identity(3, format='csc') - 0.1 * "
            f"{op}.tocsc(), {v})"])
        lines.append(f"{r} = {apply}")
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]

    def s_masked_ufunc(self, scope, indent, nest, loop):
        """The NaN-safe division of published code, or a log or sqrt where its argument
        is positive: a ufunc written into an array (a new one, or a name that another
        may hold too) where a mask allows."""
        r, a = self.name("r"), self.name("buf")
        u, w = self.e("v", scope, 2), self.e("v", scope, 2)
        call, mask = self.rng.choice([
            (f"np.divide({u}, {w}", f"np.abs({w}) > 0.4"),
            (f"np.log({u}", f"({u}) > 0.2"), (f"np.sqrt({w}", f"({w}) > 0.1")])
        if self.rng.random() < 0.5:
            lines = [f"{r} = {call}, out=np.zeros_like({u}), where={mask})"]
        else:
            lines = [f"{a} = np.full_like({u}, 0.5)", f"{r} = {a}",
                     f"{call}, out={a}, where={mask})"]
        scope.vars[r] = "v"
        return [self.pad(indent, line) for line in lines]
