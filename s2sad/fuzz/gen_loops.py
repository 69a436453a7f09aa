"""Loop statements of the program generator (a mixin of :class:`s2sad.fuzz.gen.Gen`).

Every loop carries an *accumulator* made just before it (a float or a fresh
array) that its body updates with a bounded step (``acc * 0.5 + e``,
``np.tanh(acc + e)``, ...), so loops of any nesting keep values finite.
Bodies hold nested statements, ``continue`` before the update and ``break``
after it.  Loops run over ``range(n)`` (``n`` an argument), over arrays and
their rows, over lists held in variables, ``enumerate``, ``zip`` and
``enumerate(zip(...))``; ``while`` loops count (``j += 1`` first, so
``continue`` cannot hang them) or stop on a float condition; item
assignment in a loop writes ``z[i % 3]`` as ``H[t + 1] = ...`` codes do.
"""


class LoopStatements:
    """s_* methods for loops; they return source lines, or None when they do not apply."""

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

    def zipped(self, scope, parts=False):
        (s1, t1), (s2, t2) = [self.list_source(scope) if self.rng.random() < 0.4 else
                              (self.e("v", scope, 1), "f") for _ in range(2)]
        if parts:
            return s1, s2, t1, t2
        return f"zip({s1}, {s2})", t1, t2

    def s_zip(self, scope, indent, nest, loop):
        src, t1, t2 = self.zipped(scope)
        a, b = self.name("a"), self.name("b")
        return self.loop(scope, indent, nest, f"for {a}, {b} in {src}:", {a: t1, b: t2}, "for",
                         loop)

    def s_enum_zip(self, scope, indent, nest, loop):
        """enumerate(zip(..)), zip(enumerate(..), ..), zip of three, enumerate from 1."""
        s1, s2, t1, t2 = self.zipped(scope, parts=True)
        k, a, b = self.name("k"), self.name("a"), self.name("b")
        binds = {k: "i", a: t1, b: t2}
        form = self.rng.randrange(4)
        if form == 0:
            head = f"for {k}, ({a}, {b}) in enumerate(zip({s1}, {s2})):"
        elif form == 1:
            head = f"for ({k}, {a}), {b} in zip(enumerate({s1}), {s2}):"
        elif form == 2:
            c = self.name("c")
            head = f"for {a}, {b}, {c} in zip({s1}, {s2}, {self.e('v', scope, 1)}):"
            binds = {a: t1, b: t2, c: "f"}
        else:
            head = f"for {k}, ({a}, {b}) in enumerate(zip({s1}, {s2}), 1):"
        return self.loop(scope, indent, nest, head, binds, "for", loop)

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

    def s_while_float(self, scope, indent, nest, loop):
        """A while loop whose trip count depends on float data (bounded by a counter)."""
        acc, j = self.name("acc"), self.name("j")
        inner = scope.child()
        inner.vars.update({acc: "f", j: "i"})
        step = self.e("f", scope, 2)
        lines = [self.pad(indent, f"{acc} = {self.e('f', scope, 2)}"),
                 self.pad(indent, f"{j} = 0"),
                 self.pad(indent, f"while {acc} < 2.5 and {j} < 6:"),
                 self.pad(indent + 1, f"{j} += 1"),
                 self.pad(indent + 1, f"{acc} = {acc} + abs({step}) * 0.7 + 0.35")]
        scope.vars[acc] = "f"
        return lines

    def s_setitem_loop(self, scope, indent, nest, loop):
        """z[i % 3] = ... (or a row of a matrix) inside a counted loop."""
        t = self.rng.choice(["v", "m"])
        z, i = self.name("z"), self.name("i")
        init = "np.zeros(3)" if t == "v" else "np.zeros((2, 3))"
        if self.rng.random() < 0.5:
            init = f"np.copy({self.e(t, scope, 1)})"
        inner = scope.child()
        inner.vars[i] = "i"
        inner.vars[z] = t
        if t == "v":
            target, rhs = f"{z}[{i} % 3]", self.e("f", inner, 2)
            prev = f"{z}[({i} + 2) % 3]"
        else:
            target, rhs = f"{z}[{i} % 2]", self.e("v", inner, 2)
            prev = f"{z}[({i} + 1) % 2]"
        op = self.rng.choice(["=", "+="])
        lines = [self.pad(indent, f"{z} = {init}"),
                 self.pad(indent, f"for {i} in {self.count(scope)}:"),
                 self.pad(indent + 1, f"{target} {op} np.tanh({prev} + {rhs})")]
        scope.vars[z] = t
        scope.fresh.add(z)
        return lines

    def s_matvec_loop(self, scope, indent, nest, loop):
        """An RNN's step in a counted loop: the matrix parameter M times vectors (its
        gradient's outer products are batched: rules/runtime/accumulate.py), an item of x read at
        the loop's index (its gradient added into its slot)."""
        if scope.vars.get("M") != "m":
            return None
        h, i = self.name("h"), self.name("i")
        inner = scope.child()
        inner.vars.update({i: "i", h: "u"})
        item = f"x[{i} % 3]" if scope.vars.get("x") == "v" else self.e("f", inner, 1)
        step = self.rng.choice([
            f"np.tanh(M @ {self.e('v', inner, 1)} + {h} * 0.5) * {item}",
            f"np.tanh(M @ (M.T @ {h}) * 0.3 + {self.e('u', inner, 1)})",
            f"{h} * 0.5 + np.sin({h} @ M) @ M.T * 0.2 + {item}",
        ])
        lines = [self.pad(indent, f"{h} = ({self.e('u', scope, 1)}) * 1.0"),
                 self.pad(indent, f"for {i} in {self.count(scope)}:"),
                 self.pad(indent + 1, f"{h} = {step}")]
        scope.vars[h] = "u"
        scope.fresh.add(h)
        return lines
