"""Function statements of the program generator (a mixin of :class:`s2sad.fuzz.gen.Gen`).

Nested ``def`` and ``lambda`` (in branches and loops too) that capture the
variables around them, closures that read a variable rebound after they were
made (Python reads it at the call), defaults evaluated at ``def`` time, and
the module-level helpers of a program: plain helpers (one result or a
tuple), closure factories, functions taking a function, and recursion of a
run-time depth.
"""

import re

from .exprs import Scope


class FunctionStatements:
    """s_* methods for local functions, h_* methods for module-level helpers."""

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

    def s_factory(self, scope, indent, nest, loop):
        if not self.factories:
            return None
        fac = self.rng.choice(sorted(self.factories))
        ta, tr = self.factories[fac]
        g = self.name("g")
        line = self.pad(indent, f"{g} = {fac}({self.e('f', scope, 2)})")
        scope.fns[g] = ([ta], tr)
        return [line] + self.use_fn(scope, indent, g, ta, tr)

    # -- module-level helpers ------------------------------------------------------------
    def helper(self, scope):
        kinds = [(4, "helper"), (2, "closure_factory"), (2, "higher_order"), (1, "recursion"),
                 (2, "helper_tuple"), (1, "kwargs")]
        kind = self.ex.pick([k for k in kinds if self.ok(k[1])] or [(1, "helper")])[1]
        getattr(self, "h_" + {"helper_tuple": "tuple_helper"}.get(kind, kind))(scope)
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
        if self.ok("shadow_global") and self.rng.random() < 0.3:
            self.shadow_global(scope, params, args, body)
        body.append(f"    return {self.e(ret, inner, 2)}")
        self.helpers.append((f"def {name}({', '.join(params)}):\n" + "\n".join(body), name))
        scope.fns[name] = (args, ret)
        scope.module_fns.add(name)
        if self.ok("inner_grad") and self.rng.random() < 0.5:
            self.module_derivative(scope, name, args, ret)

    def shadow_global(self, scope, params, args, body):
        """A helper's first statement assigns a local named as the module's G, which f
        reads too: two values of one name (of the parameters only, never of G itself)."""
        first = Scope()
        first.fns = dict(scope.fns)
        first.vars.update(zip(params, args))
        value = self.e("v", first, 2)
        if not re.search(r"\bG\b", value):
            self.used.add("shadow_global")
            body.insert(0, f"    G = {value}")

    def module_derivative(self, scope, name, args, ret):
        """d = s2sad.grad(helper) (or derivative) at module level, called inside f."""
        self.used.add("inner_grad")
        kind = "grad" if ret == "f" and self.rng.random() < 0.6 else "derivative"
        d = self.name("d" + kind[0])
        self.helpers.append((f"{d} = s2sad.{kind}({name})\n", d))
        scope.fns[d] = (args, args[0] if kind == "grad" else ret)

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

    def s_late_closure(self, scope, indent, nest, loop):
        """A lambda reading a variable that is rebound before the call."""
        if not self.ok("lambda"):
            return None
        c, g, a, r = self.name("c"), self.name("g"), self.name("p"), self.name("r")
        ta = self.rng.choice(["f", "v"])
        inner = scope.child()
        inner.vars.update({a: ta, c: "f"})
        lines = [self.pad(indent, f"{c} = {self.e('f', scope, 2)}"),
                 self.pad(indent, f"{g} = lambda {a}: {self.e(ta, inner, 1)} * {c}"),
                 self.pad(indent, f"{c} = np.sin({c}) + {self.e('f', scope, 1)}"),
                 self.pad(indent, f"{r} = {g}({self.e(ta, scope, 2)})")]
        scope.vars.update({c: "f", r: ta})
        scope.fns[g] = ([ta], ta)
        return lines

    def s_def_default(self, scope, indent, nest, loop):
        """def h(a, b=<value now>): called with and without b."""
        h, a, b, r = self.name("h"), self.name("p"), self.name("q"), self.name("r")
        ta = self.rng.choice(["f", "v"])
        inner = scope.child()
        inner.vars.update({a: ta, b: "f"})
        lines = [self.pad(indent, f"def {h}({a}, {b}={self.e('f', scope, 1)}):"),
                 self.pad(indent + 1, f"return {self.e(ta, inner, 2)} + {a} * {b}"),
                 self.pad(indent, f"{r} = {h}({self.e(ta, scope, 2)}) + "
                                  f"{h}({self.e(ta, scope, 1)}, {b}={self.e('f', scope, 1)})")]
        scope.vars[r] = ta
        return lines

    def s_call_tuple(self, scope, indent, nest, loop):
        """p, q = helper(...) for a helper that returns a tuple."""
        names = [n for n, (args, ret) in scope.fns.items() if ret == "pair"]
        if not names:
            return None
        h = self.rng.choice(names)
        args = scope.fns[h][0]
        p, q = self.name("p"), self.name("q")
        call = f"{h}({', '.join(self.e(t, scope, 2) for t in args)})"
        scope.vars.update({p: "f", q: "v"})
        return [self.pad(indent, f"{p}, {q} = {call}")]

    def h_tuple_helper(self, scope):
        name = self.name("pair")
        args = [self.rng.choice(["f", "v"]) for _ in range(self.rng.randint(1, 2))]
        inner = Scope()
        inner.fns = {k: v for k, v in scope.fns.items() if v[1] != "pair"}
        params = [self.name("a") for _ in args]
        inner.vars.update(zip(params, args))
        outer_ret, self.ret = getattr(self, "ret", None), "tuple"
        body = self.block(inner, 1, 1, self.rng.randint(0, 2))
        self.ret = outer_ret
        body.append(f"    return {self.e('f', inner, 2)}, {self.e('v', inner, 2)}")
        self.helpers.append((f"def {name}({', '.join(params)}):\n" + "\n".join(body), name))
        scope.fns[name] = (args, "pair")

    def h_kwargs(self, scope):
        """A helper taking a tuple, a default and a keyword-only parameter; f calls it
        through s_call_kwargs with positional, keyword and default arguments."""
        name = self.name("kw")
        t = self.rng.choice(["f", "v"])
        inner = Scope()
        inner.vars.update({"a": "f", "b": t, "scale": "f", "shift": "f"})
        body = self.e(t, inner, 2)
        src = (f"def {name}(p, scale=0.5, *, shift=0.1):\n    a, b = p\n"
               f"    return ({body}) * scale + shift * a")
        self.helpers.append((src, name))
        scope.kw_helpers = getattr(scope, "kw_helpers", []) + [(name, t)]

    def s_call_kwargs(self, scope, indent, nest, loop):
        helpers = getattr(self.root_scope, "kw_helpers", [])
        if not helpers:
            return None
        name, t = self.rng.choice(helpers)
        r = self.name("r")
        pair = f"({self.e('f', scope, 1)}, {self.e(t, scope, 2)})"
        extra = self.rng.choice(["", f", {self.e('f', scope, 1)}",
                                 f", shift={self.e('f', scope, 1)}",
                                 f", scale={self.e('f', scope, 1)}, shift=0.3"])
        scope.vars[r] = t
        return [self.pad(indent, f"{r} = {name}({pair}{extra})")]
