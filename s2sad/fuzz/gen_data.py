"""Container and item-assignment statements of the program generator (a mixin of
:class:`s2sad.fuzz.gen.Gen`).

Item assignment only ever writes into arrays the program made itself
(``np.zeros``, ``np.copy``, ``e * 1.0``), never into an argument, so the
plain program never changes its inputs: by index, slice, boolean mask and
integer array (with a repeated index, where NumPy writes once).  Lists and
dicts are built, changed item by item, appended to and read back; tuples are
unpacked; dict arguments are iterated over.
"""


class DataStatements:
    """s_* methods for arrays changed in place, lists, dicts and tuples."""

    def fresh_array(self, scope, indent):
        names = [n for n, t in scope.vars.items() if n in scope.fresh and t in ("v", "m")]
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

    def s_setitem_fancy(self, scope, indent, nest, loop):
        """z[[i, j]] = ... / += ... with an integer array index (maybe repeated)."""
        lines, z = self.fresh_array(scope, indent)
        if scope.vars[z] != "v":
            return lines + [self.pad(indent, f"{z}[[1, 0]] = {z}[[0, 1]] * "
                                             f"{self.e('f', scope, 1)}")]
        idx = self.rng.choice(["[0, 2]", "[2, 2]", "[1, 0, 1]"])
        op = self.rng.choice(["=", "+=", "*="])
        return lines + [self.pad(indent, f"{z}[{idx}] {op} {self.e('f', scope, 2)}")]

    def s_dict_iter(self, scope, indent, nest, loop):
        """for k in D / D.items() / D.values() over a dict argument {'a': float, 'b': array},
        or for k in d over a dict literal the program makes."""
        acc, k, val, d = self.name("acc"), self.name("k"), self.name("val"), self.name("d")
        forms = [(f"for {k} in {d}:", f"np.sum({d}[{k}])", True)]
        if "D" in scope.params:
            forms += [(f"for {k} in D:", f"np.sum(D[{k}])", False),
                      (f"for {k}, {val} in D.items():", f"np.sum({val})", False),
                      (f"for {val} in D.values():", f"np.sum({val})", False)]
        head, read, literal = self.rng.choice(forms)
        lines = [self.pad(indent, f"{d} = {{'p': {self.e('f', scope, 1)}, "
                                  f"'q': {self.e('v', scope, 1)}}}")] if literal else []
        lines += [self.pad(indent, f"{acc} = {self.e('f', scope, 1)}"),
                  self.pad(indent, head),
                  self.pad(indent + 1, f"{acc} = {acc} * 0.5 + np.sin({read})")]
        scope.vars[acc] = "f"
        return lines

    def s_param_rebind(self, scope, indent, nest, loop):
        """x = x * 0.5 + ...: a parameter rebound to a new value of its type."""
        names = [n for n, t in scope.vars.items() if n in scope.params and t in ("f", "v", "u", "m")]
        if not names:
            return None
        n = self.rng.choice(names)
        return [self.pad(indent, f"{n} = {n} * 0.5 + {self.e(scope.vars[n], scope, 2)}")]

    def s_setitem_slice(self, scope, indent, nest, loop):
        """z[1:] += v[:2], z[:, 0] *= f, z[:2] = z[1:] * f (overlapping read and write)."""
        lines, z = self.fresh_array(scope, indent)
        if scope.vars[z] == "v":
            forms = [f"{z}[1:] += {self.e('v', scope, 2)}[:2]",
                     f"{z}[:2] = {z}[1:] * {self.e('f', scope, 1)}",
                     f"{z}[::2] -= {self.e('f', scope, 2)}"]
        else:
            forms = [f"{z}[:, 0] *= {self.e('f', scope, 1)}",
                     f"{z}[1, 1:] = {z}[0, :2] + {self.e('f', scope, 2)}",
                     f"{z}[:, 1:] += {self.e('m', scope, 2)}[:, :2]"]
        return lines + [self.pad(indent, self.rng.choice(forms))]

    def s_setitem_mask_array(self, scope, indent, nest, loop):
        """z[mask] = v[mask] with an array on the right."""
        lines, z = self.fresh_array(scope, indent)
        t = scope.vars[z]
        mask = self.name("mask")
        return lines + [self.pad(indent, f"{mask} = {z} > {self.e('f', scope, 1)}"),
                        self.pad(indent, f"{z}[{mask}] = {self.e(t, scope, 2)}[{mask}]")]
