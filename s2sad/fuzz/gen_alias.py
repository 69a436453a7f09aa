"""Statements about shared state (a mixin of :class:`s2sad.fuzz.gen.Gen`).

NumPy and Python share objects: a slice, ``.T`` or ``.reshape`` of an array
is a *view* of it, a row of a loop over a matrix is a view, a list or dict
holds the array itself, ``b = a`` is the same array.  Changing one in place
changes what the other reads.  These statements make such programs (always
on arrays the program made itself, never on an argument): s2sad must either
follow NumPy or refuse, never differentiate as if the other name were
unchanged.  A list passed to a helper that appends to it is shared the same way.
Also here: loop-carried swaps (``a, b = b, a + b``), boolean
flags set under ``break``, closures that append to a list they capture,
list comprehensions of arrays, 3-d broadcasting, and integer results; and
integer arrays made from masks by an identity (``(v > c) * 1``, ``+ 0``, ``** 1``)
that the program then indexes with or negates, where dropping the identity changes
the meaning (a mask for an index array).
"""

from .exprs import Scope


class AliasStatements:
    """s_* methods for views, aliases, swaps, flags and friends."""

    def s_view_alias(self, scope, indent, nest, loop):
        """w = z[:2] / z[::-1] / z.T / z (a view or the same array), then z or w changes."""
        lines, z = self.fresh_array(scope, indent)
        w = self.name("w")
        if scope.vars[z] == "v":
            view, wt = self.rng.choice([(f"{z}[:2]", "u"), (f"{z}[::-1]", "v"), (z, "v"),
                                        (f"{z}.reshape(3)", "v"), (f"{z}[1:]", "u")])
        else:
            view, wt = self.rng.choice([(f"{z}[0]", "v"), (f"{z}.T.T", "m"), (f"{z}[:, 1]", "u"),
                                        (z, "m"), (f"{z}.reshape(2, 3)", "m")])
        change = self.rng.choice([f"{z}[0] = {self.e('f', scope, 1)}",
                                  f"{z} += {self.e(scope.vars[z], scope, 1)}",
                                  f"{w}[0] = {self.e('f', scope, 1)}",
                                  f"{w} *= {self.e('f', scope, 1)}"])
        scope.vars[w] = wt
        return lines + [self.pad(indent, f"{w} = {view}"), self.pad(indent, change)]

    def s_view_rebind(self, scope, indent, nest, loop):
        """w = a slice of z; z bound to a new array (straight, in a branch, or in a loop,
        before or after a write), and z or w written: w stays a view of the old array."""
        lines, z = self.fresh_array(scope, indent)
        w = self.name("w")
        view = f"{z}[1:]" if scope.vars[z] == "v" else f"{z}[:, 1]"
        lines.append(self.pad(indent, f"{w} = {view}"))
        rebind = f"{z} = {z} * {self.e('f', scope, 1)}"
        write = self.rng.choice([f"{z}[0] = {self.e('f', scope, 1)}",
                                 f"{w}[0] = {self.e('f', scope, 1)}",
                                 f"{z} += {self.e('f', scope, 1)}",
                                 f"{w} *= {self.e('f', scope, 1)}"])
        form = self.rng.choice(["straight", "branch", "loop", "loop_after"])
        if form == "straight":
            lines += [self.pad(indent, rebind), self.pad(indent, write)]
        elif form == "branch":
            lines += [self.pad(indent, f"if {self.e('b', scope, 1)}:"),
                      self.pad(indent + 1, rebind), self.pad(indent, write)]
        else:
            i = self.name("i")
            body = [rebind, write] if form == "loop" else [write, rebind]
            lines += [self.pad(indent, f"for {i} in {self.count(scope)}:")] + \
                [self.pad(indent + 1, b) for b in body]
        scope.vars[w] = "u"
        return lines

    def s_int_identity(self, scope, indent, nest, loop):
        """k = (v > c) * 1 (or + 0, ** 1, ones from zeros): an int array, used as an
        index (x[k] reads items 0 and 1, not a mask's) or negated."""
        v = self.e("v", scope, 1)
        c = self.rng.choice(["0.2", "-0.3", self.e("f", scope, 1)])
        k, r = self.name("k"), self.name("r")
        made = self.rng.choice([f"({v} > {c}) * 1", f"({v} > {c}) + 0", f"1 * ({v} <= {c})",
                                f"(({v} > {c}) * 1) ** 1", f"np.zeros(3, dtype=int) + ({v} > {c})"])
        src = self.e("v", scope, 1)
        use = self.rng.choice([f"{src}[{k}]", f"{src} * -{k}", f"{src} * ({k} - 1)",
                               f"{src}[{k} * 2]", f"{src}[{k}] * {k}"])
        scope.vars[r] = "v"
        return [self.pad(indent, f"{k} = {made}"), self.pad(indent, f"{r} = {use}")]

    def s_container_alias(self, scope, indent, nest, loop):
        """A list or dict holds an array that then changes in place."""
        lines, z = self.fresh_array(scope, indent)
        t = scope.vars[z]
        c = self.name("box")
        if self.rng.random() < 0.5:
            lines.append(self.pad(indent, f"{c} = [{z}, {self.e(t, scope, 1)}]"))
            read = f"{c}[0]"
        else:
            lines.append(self.pad(indent, f"{c} = {{'k': {z}}}"))
            read = f"{c}['k']"
        lines.append(self.pad(indent, self.rng.choice([f"{z}[-1] = {self.e('f', scope, 1)}",
                                                       f"{z} *= {self.e('f', scope, 1)}"])))
        r = self.name("r")
        lines.append(self.pad(indent, f"{r} = {read} * 1.0"))
        scope.vars[r] = t
        return lines

    def s_row_loop_write(self, scope, indent, nest, loop):
        """for r in Z: r[0] = ... changes Z through the row views."""
        z = self.name("z")
        r = self.name("row")
        inner = scope.child()
        inner.vars[r] = "v"
        lines = [self.pad(indent, f"{z} = {self.e('m', scope, 2)} * 1.0"),
                 self.pad(indent, f"for {r} in {z}:"),
                 self.pad(indent + 1, f"{r}[{self.rng.randrange(3)}] = "
                                      f"{self.e('f', inner, 2)}")]
        scope.vars[z] = "m"
        scope.fresh.add(z)
        return lines

    def s_swap(self, scope, indent, nest, loop):
        """a, b = b, a * s + e in a loop (a tuple assignment reading the old values)."""
        t = self.rng.choice(["f", "v"])
        a, b, i = self.name("a"), self.name("b"), self.name("i")
        inner = scope.child()
        inner.vars.update({a: t, b: t, i: "i"})
        lines = [self.pad(indent, f"{a}, {b} = {self.e(t, scope, 2)}, {self.e(t, scope, 2)}"),
                 self.pad(indent, f"for {i} in {self.count(scope)}:"),
                 self.pad(indent + 1, f"{a}, {b} = {b}, np.tanh({a} * 0.5 + {b} * "
                                      f"{self.e('f', inner, 1)})")]
        scope.vars.update({a: t, b: t})
        return lines

    def s_flag(self, scope, indent, nest, loop):
        """found = False; for ...: if cond: found = True; break; then branch on it."""
        flag, e, c = self.name("found"), self.name("e"), self.name("c")
        inner = scope.child()
        inner.vars[e] = "f"
        t = self.rng.choice(["f", "v"])
        lines = [self.pad(indent, f"{flag} = False"),
                 self.pad(indent, f"for {e} in {self.e('v', scope, 1)}:"),
                 self.pad(indent + 1, f"if {self.e('b', inner, 1)}:"),
                 self.pad(indent + 2, f"{flag} = True"),
                 self.pad(indent + 2, "break"),
                 self.pad(indent, f"{c} = {self.e(t, scope, 2)} if {flag} else "
                                  f"{self.e(t, scope, 2)}")]
        scope.vars[c] = t
        return lines

    def s_closure_append(self, scope, indent, nest, loop):
        """A nested def that appends to a list it captures, called in a loop."""
        lst, h, a, i = self.name("lst"), self.name("h"), self.name("p"), self.name("i")
        inner = scope.child()
        inner.vars[a] = "v"
        body = self.e("v", inner, 2)
        lines = [self.pad(indent, f"{lst} = [{self.e('v', scope, 1)}]"),
                 self.pad(indent, f"def {h}({a}):"),
                 self.pad(indent + 1, f"{lst}.append({body})"),
                 self.pad(indent, f"for {i} in {self.count(scope)}:"),
                 self.pad(indent + 1, f"{h}({lst}[-1] * 0.5)")]
        scope.readers.append(("v", f"{lst}[-1]"))
        return lines

    def s_shared_list(self, scope, indent, nest, loop):
        """A list f made, changed by a function it passes it to (a module helper that
        appends to its parameter, a closure a factory made around it, or a nested def in
        a branch), then read by f: Python's list is shared, so f sees the appends."""
        lst, k = self.name("lst"), self.name("k")
        form = self.rng.choice(["helper", "factory", "branch"])
        inner = scope.child() if form == "branch" else Scope()     # a helper sees only v
        inner.vars["v"] = "v"
        grow = f"np.sin(v) * 0.5 + {self.e('v', inner, 1)}"
        lines = [self.pad(indent, f"{lst} = [{self.e('v', scope, 1)}]")]
        if form == "helper":
            h = self.name("push")
            self.helpers.append((f"def {h}(items, v):\n    items.append({grow})\n"
                                 f"    return np.sum(v)", h))
            lines.append(self.pad(indent, f"{k} = {h}({lst}, {lst}[-1])"))
            scope.vars[k] = "f"
        elif form == "factory":
            h, g = self.name("pusher"), self.name("g")
            self.helpers.append((f"def {h}(items):\n    def push(v):\n"
                                 f"        items.append({grow})\n    return push", h))
            lines += [self.pad(indent, f"{g} = {h}({lst})"),
                      self.pad(indent, f"{g}({lst}[-1])")]
        else:
            h = self.name("h")
            lines += [self.pad(indent, f"def {h}(v):"),
                      self.pad(indent + 1, f"{lst}.append({grow})"),
                      self.pad(indent, f"if {self.e('b', scope, 1)}:"),
                      self.pad(indent + 1, f"{h}({lst}[-1])"),
                      self.pad(indent, "else:"),
                      self.pad(indent + 1, f"{h}({lst}[0] * 2.0)")]
        scope.readers.append(("v", f"{lst}[-1]"))
        return lines

    def s_listcomp_arrays(self, scope, indent, nest, loop):
        """A list comprehension over the rows of a matrix, stacked back."""
        r, name = self.name("row"), self.name("v")
        inner = scope.child()
        inner.vars[r] = "v"
        comp = f"[{self.e('v', inner, 2)} for {r} in {self.e('m', scope, 1)}]"
        if self.rng.random() < 0.5:
            read, t = f"np.stack({comp})", "m"
        else:
            read, t = f"np.sum(np.stack({comp}), axis=0)", "v"
        scope.vars[name] = t
        return [self.pad(indent, f"{name} = {read}")]

    def s_broadcast3d(self, scope, indent, nest, loop):
        """A 3-d intermediate from broadcasting, reduced back over two axes."""
        name = self.name("v")
        m, v = self.e("m", scope, 1), self.e("v", scope, 1)
        form = self.rng.choice([
            (f"np.sum({m}[:, None, :] * {v}[None, :, None], axis=(1, 2))", "u"),
            (f"np.mean({m}[:, :, None] * {m}[:, None, :], axis=(0, 2))", "v"),
            (f"np.einsum('ij,ik,j->k', {m}, {m}, {v})", "v")])
        scope.vars[name] = form[1]
        return [self.pad(indent, f"{name} = {form[0]}")]
