"""The fast path of a transform's call with Python numbers and NumPy arrays only.

A scalar function's gradient takes a fraction of a microsecond; the general call
(spec, cache lookup, backend, finishing each gradient) takes microseconds, which is
also 5% of a small layer's gradient.  After the first call with Python numbers and
NumPy arrays, Transformed keeps a runner written for that call: it checks the
arguments' count and types (for an array, whether it holds floats, as the code it
was made for assumed) and the guards of the generated code (the globals it read, the
closure cells), calls the generated function and finishes the gradients, each in one
line of straight code.  A dict of weights is covered where its values are NumPy
arrays and Python numbers, one of them floats (plain_dict: the dict the code was made
for, Arg.DICT).  Anything else (another type, a guard that no longer holds) answers
MISS, and the call takes the general way.
"""

import numpy as np

from . import cache, floatmath, scopes
from .ir.spec import Arg
from .calls import finish, forced_backend

MISS = object()        # the runner's answer for a call it does not cover


def runner(art, f, n, types, kind, wrt, with_value, check_value, finish_grads, on_error,
           jit=None, general=None):
    """A function run(args) -> the call's result, or MISS.  art: the artifact (its
    guards); f: its generated function for NumPy, or under s2sad.jit its compiled runner
    (compiled/build.py: Runner), with jit() saying the mode ("faster" or "compiled");
    types: the argument types it covers; check_value(value) for value_and_grad;
    finish_grads(grads, art, args) where the gradients are not one per float argument;
    on_error(e) raises what an error of the generated code means.

    general: (call, jit_active, trim) for the runner that is the transform's entry
    (Transformed.__call__): run(owner, a0, .., /, *more, **kwargs), a method of the
    transform's class of its own (its arguments bound as parameters: no tuple is made),
    which hands a call it does not cover, or one under an s2sad.jit (jit_active()), to
    call(args, kwargs), and raises its errors trimmed; without it, run(args) answers
    MISS."""
    env = {"MISS": MISS, "f": f, "jit": jit, "art": art, "fin": finish,
           "check_value": check_value,
           "finish_grads": finish_grads, "on_error": on_error, "f64": np.float64,
           "forced": forced_backend.get, "plain_dict": plain_dict,
           "RETRY": floatmath.RETRY}
    numbers = not jit and art.module.numbers and all(t in (float, int) for t in types)
    if numbers:         # Python numbers: math's functions (floatmath.py)
        env["fm"] = art.function(floatmath.FLOATS)
    names = [f"a{i}" for i in range(n)]
    if general is not None:
        env["general"], env["jit_active"], env["trim"] = general
    tests = _arg_tests(art, names, types, env, general is not None)
    if general is None:
        miss = "return MISS"
        lines = ["def run(args):", f"    if len(args) != {n}:", f"        {miss}",
                 f"    {_tuple(names)} = args"]
    else:       # (a missing argument is MISS: the call passed fewer)
        miss = f"return general(tuple(a for a in {_tuple(names)} if a is not MISS) + more, " \
               "kwargs)"
        lines = [f"def run(owner, {''.join(a + '=MISS, ' for a in names)}/, *more, **kwargs):",
                 f"    if more or kwargs{''.join(f' or {a} is MISS' for a in names[-1:])}:",
                 f"        {miss}"]
    lines += ["    try:           # (an empty cell raises ValueError, a global gone KeyError)",
             f"        if {' or '.join(tests) or 'False'}:",
             f"            {miss}",
             "    except (ValueError, KeyError):",
             f"        {miss}",
             "    try:"]
    lines += _call_lines(jit, names, numbers) + [
             "    except Exception as e:",
             "        on_error(e)" if general is None else "        raise_trimmed(e)"]
    if general is not None:
        env["raise_trimmed"] = _raise_trimmed(on_error, env["trim"])
    if with_value:
        lines += ["    value, r = r", "    check_value(value)"]
    lines += ["    " + line for line in _finish_lines(kind, wrt, names, types)]
    if with_value:
        lines[-1] = lines[-1].replace("return ", "return value, ", 1)
    exec(compile("\n".join(lines), "<s2sad fast call>", "exec"), env)
    run = env["run"]
    run.art = art
    return run


def _arg_tests(art, names, types, env, entry):
    """The tests of a call's arguments (and the scopes open, the guards), each true where
    the runner does not cover the call; the names they read go into env."""
    tests = [f"type({a}) is not T{i}" for i, a in enumerate(names)]
    # s2sad.backend("cupy") around it, or (for the entry) an s2sad.jit
    scope = "forced() not in (None, 'numpy')" + (" or jit_active()" if entry else "")
    env["OPEN"] = scopes.OPEN.open
    tests.append(f"OPEN and ({scope})")
    # an array: of floats (Arg.ARRAY) or not (Arg.CONSTANT), as where the code was made
    tests += [f"({a}.dtype.kind in 'fc') is not {art.spec[i] == Arg.ARRAY}"
              for i, a in enumerate(names) if types[i] is np.ndarray]
    tests += [f"not plain_dict({a})" for i, a in enumerate(names) if types[i] is dict]
    env.update({f"T{i}": t for i, t in enumerate(types)})
    return tests + _guard_tests(art.guards, env)


def _raise_trimmed(on_error, trim):
    """on_error, whose exception leaves s2sad trimmed (what Transformed.__call__ raises)."""
    def raise_trimmed(e):
        try:
            on_error(e)
        except Exception as x:
            raise trim(x)
        raise trim(e)   # (on_error raises)
    return raise_trimmed


def plain_dict(d) -> bool:
    """Is d a dict of NumPy arrays and Python numbers, one at least of floats (the spec
    Arg.DICT of call_spec)?"""
    floats = False
    for v in d.values():
        t = type(v)
        if t is np.ndarray:
            floats = floats or v.dtype.kind in "fc"
        elif t is float:
            floats = True
        elif t is not int:
            return False
    return floats


def _guard_tests(guards, env):
    """A test per guard (true where it no longer holds): a global read again, a cell (one
    emptied raises ValueError: the runner answers MISS)."""
    tests = []
    for i, (kind, container, name, obj) in enumerate(guards):
        env[f"O{i}"] = obj
        if kind == "cell":
            env[f"C{i}"] = container
            tests.append(f"C{i}.cell_contents is not O{i}")
        elif kind in ("items", "attr", "item"):
            env[f"G{i}"], env["holds"] = container, cache.guard_holds
            tests.append(f"not holds({kind!r}, G{i}, {name!r}, O{i})")
        else:
            env[f"G{i}"] = container
            tests.append(f"G{i}[{name!r}] is not O{i}")
    return tests


def _call_lines(jit, names, numbers=False):
    """The call of the generated function: under jit, the function its runner settled on
    for the mode (its `direct`, called without the runner's frame: a scalar gradient's
    microsecond), whose error the runner answers (NumPy's code again where the compiled
    code stopped).  numbers: the code with math's functions first, NumPy's where they
    raise (floatmath.py)."""
    args = ", ".join(names)
    if numbers:
        return ["        try:",
                f"            r = fm({args})",
                "        except RETRY:",
                f"            r = f({args})"]
    if not jit:
        return [f"        r = f({args})"]
    return ["        d = f.direct if jit() == 'faster' else f.direct_compiled",
            "        try:",
            f"            r = d({args})",
            "        except Exception as e:",
            f"            r = f.after(e, d, {_tuple(names)})"]


def _finish_lines(kind, wrt, names, types):
    """The lines that shape the generated function's result r like the arguments."""
    if kind == "derivative":
        return ["return r"]
    if isinstance(wrt, int):
        return [f"return fin(r, {names[wrt]})"]
    chosen = range(len(names)) if wrt is None else wrt      # a gradient for each, in order
    if not all(isinstance(i, int) and -len(names) <= i < len(names) for i in chosen):
        return [f"return finish_grads(r, art, {_tuple(names)})"]
    rs = [f"r{k}" for k in range(len(chosen))]
    items = [f"{r} if type({r}) is float else float({r}) if type({r}) is f64 else "
             f"fin({r}, {names[i]})" if types[i] is float else
             f"fin({r}, {names[i]})" for r, i in zip(rs, chosen)]
    return [f"{_tuple(rs)} = r", f"return {_tuple(items)}"]


def _tuple(items):
    """The text of a tuple of items (one item: with its comma)."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
