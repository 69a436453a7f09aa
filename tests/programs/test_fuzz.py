"""Random programs, checked against finite differences at order 1 and 2.

Hypothesis writes small NumPy functions of an array x, a float y and an int
k: arithmetic, ufuncs, reductions, branches and loops on k (so a finite
difference never changes which branch or how many iterations run).  Each is
saved to a real file, so s2sad reads its source like a user's, then checked
with check_grads.  Derandomized, so CI sees the same programs every run.
"""

import importlib.util
import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from s2sad.check import check_grads

UNARY = ["np.sin({a})", "np.cos({a})", "np.tanh({a})", "{a} ** 2", "np.sqrt(1.0 + {a} * {a})",
         "np.exp(np.tanh({a}))", "-{a}", "np.log(1.5 + np.sin({a}))"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / (1.5 + {b} * {b})",
          "np.maximum({a}, {b}) * 0.5"]
REDUCE = ["np.sum({a}) * np.ones(3)", "np.mean({a}) + {b}", "np.max({a} * 0.3) + {b}"]

_counter = itertools.count()


@st.composite
def programs(draw):
    names = ["x", "y"]
    lines = []
    for i in range(draw(st.integers(1, 6))):
        a = draw(st.sampled_from(names))
        b = draw(st.sampled_from(names))
        kind = draw(st.sampled_from(["unary", "binary", "reduce", "if", "loop", "while",
                                     "break", "where", "setitem", "index", "closure",
                                     "tuple", "append"]))
        t = f"v{i}"
        if kind == "unary":
            lines.append(f"    {t} = {draw(st.sampled_from(UNARY)).format(a=a)}")
        elif kind == "binary":
            lines.append(f"    {t} = {draw(st.sampled_from(BINARY)).format(a=a, b=b)}")
        elif kind == "reduce":
            lines.append(f"    {t} = {draw(st.sampled_from(REDUCE)).format(a=a, b=b)}")
        elif kind == "if":
            e1 = draw(st.sampled_from(UNARY)).format(a=a)
            e2 = draw(st.sampled_from(BINARY)).format(a=a, b=b)
            lines += [f"    if k > {draw(st.integers(0, 3))}:", f"        {t} = {e1}",
                      "    else:", f"        {t} = {e2}"]
        elif kind == "loop":
            e = draw(st.sampled_from(UNARY)).format(a=t)
            lines += [f"    {t} = {a} * 1.0", "    for i in range(k):",
                      f"        {t} = {e} * 0.5 + {b} * 0.1"]
        elif kind == "while":
            e = draw(st.sampled_from(UNARY)).format(a=t)
            lines += [f"    {t} = {a} * 1.0", "    j = 0", "    while j < k:",
                      f"        {t} = {e} * 0.5 + {b} * 0.1", "        j += 1"]
        elif kind == "break":
            e = draw(st.sampled_from(BINARY)).format(a=t, b=b)
            lines += [f"    {t} = {a} * 1.0", "    for i in range(4):",
                      "        if i >= k:", "            break",
                      f"        {t} = np.tanh({e})"]
        elif kind == "where":
            lines.append(f"    {t} = np.where(x > 0.0, {a}, {b} * 0.5)")
        elif kind == "setitem":
            lines += [f"    {t} = {a} * np.ones(3)", f"    {t}[1] = np.sum({b}) * 0.5"]
        elif kind == "index":
            lines.append(f"    {t} = {a} * x[{draw(st.integers(0, 2))}]")
        elif kind == "closure":
            body = draw(st.sampled_from(UNARY)).format(a="u")
            lines += [f"    g{i} = lambda u: {body} * {b}", f"    {t} = g{i}({a}) + g{i}(y)"]
        elif kind == "tuple":
            lines += [f"    p{i} = ({a}, {b} * 2.0)", f"    q{i}, r{i} = p{i}",
                      f"    {t} = q{i} * r{i} + p{i}[0]"]
        else:
            lines += [f"    acc{i} = []", "    for i in range(k):",
                      f"        acc{i}.append({a} * (i + 1.0))",
                      f"    {t} = {b} + (np.sum(np.stack(acc{i})) if k > 0 else 0.0)"]
        names.append(t)
    last = names[-1]
    lines.append(f"    return np.sum({last} * {draw(st.sampled_from(names))}) + y")
    return "import numpy as np\n\n\ndef f(x, y, k):\n" + "\n".join(lines) + "\n"


def load(source, tmp_path):
    path = tmp_path / f"fuzz_{next(_counter)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=programs(), k=st.integers(0, 3))
def test_random_programs(source, k, tmp_path):
    f = load(source, tmp_path)
    x = np.array([0.3, -0.7, 1.1])
    try:
        check_grads(f, (x, 0.4, k), order=2)
    except AssertionError as e:
        raise AssertionError(f"{e}\nprogram (k={k}):\n{source}") from None
