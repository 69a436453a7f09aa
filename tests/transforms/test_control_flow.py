"""Control flow, closures, calls and containers: refused until supported, then right.

Every entry of tests/support/control_corpus.py is checked one of two ways:

* its feature is in ``IMPLEMENTED`` (and so is every feature it also needs,
  see ``control_corpus.ALSO_NEEDS``): check_grads at order 1 and at order 2,
  and ``grad_all`` (and ``grad_all(grad_all)``) against central finite
  differences of the plain Python function, computed here independently of
  s2sad and mirroring the structure of container arguments;
* otherwise: transforming it raises UnsupportedSyntaxError (S2SADError for
  "call" and "containers"), naming control_corpus.py.  A construct that is not
  supported is refused, never silently wrong.

Entries in ``SUPPORTED_EARLY`` work before their own feature lands (a call of
a function s2sad made is inlined like any helper): they are checked for
gradients as soon as the other features they use (ALSO_NEEDS) are implemented.

"mutation" entries are checked either way: the gradient is right, or an
S2SADError is raised when the function is transformed.  Never a wrong number.

The features are added to ``IMPLEMENTED`` as they land.
"""

import copy
import os
import sys

import numpy as np
import pytest

import s2sad
from s2sad import S2SADError, UnsupportedSyntaxError, grad_all
from s2sad.calls import call_spec
from s2sad.check import check_grads

import control_corpus as cc

IMPLEMENTED = {"if", "ifexp", "boolops", "return", "for", "while", "break", "results", "closure", "arguments", "lists", "mutation", "call"}

# entries that s2sad supports before their feature lands: a call of a function s2sad
# made is inlined like any helper.  Checked for gradients once the features in
# their ALSO_NEEDS are implemented, never expected to be refused.
SUPPORTED_EARLY = {"call_s2sad_grad_inside", "call_pde_residual", "call_s2sad_grad_in_loop"}

EPS = 1e-5          # the finite difference step (as in check_grads)
CORPUS_FILE = os.path.basename(cc.__file__)


def _ids(entries):
    seen = {}
    out = []
    for feature, fn, _ in entries:
        name = f"{feature}-{fn.__name__}"
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return out


def _ready(feature, fn):
    """Is everything the entry uses implemented?"""
    needs = {feature} | set(cc.ALSO_NEEDS.get(fn.__name__, ()))
    return needs <= IMPLEMENTED


def _checked(feature, fn):
    """Check the gradients of the entry (rather than that it is refused)?"""
    if feature == "mutation":
        return False
    if fn.__name__ in SUPPORTED_EARLY:
        return set(cc.ALSO_NEEDS.get(fn.__name__, ())) <= IMPLEMENTED
    return _ready(feature, fn)


CHECKED = [e for e in cc.CORPUS if _checked(e[0], e[1])]
REFUSED = [e for e in cc.CORPUS if e[0] != "mutation" and not _checked(e[0], e[1])]
MUTATION = [e for e in cc.CORPUS if e[0] == "mutation"]


# ---------------------------------------------------------------------------
# finite differences of the plain Python function, over nested arguments
# ---------------------------------------------------------------------------

def _copy(tree):
    """A deep copy, so that a function that writes into its arguments cannot change ours."""
    return copy.deepcopy(tree)


def _is_float_leaf(a):
    if isinstance(a, bool):
        return False
    if isinstance(a, float):
        return True
    return isinstance(a, (np.ndarray, np.floating)) and np.asarray(a).dtype.kind == "f"


def _float_leaves(tree, path=()):
    """(path, leaf) for every float leaf of nested tuples, lists and dicts."""
    if isinstance(tree, (tuple, list)):
        out = []
        for i, e in enumerate(tree):
            out.extend(_float_leaves(e, path + (i,)))
        return out
    if isinstance(tree, dict):
        out = []
        for k in sorted(tree):
            out.extend(_float_leaves(tree[k], path + (k,)))
        return out
    return [(path, tree)] if _is_float_leaf(tree) else []


def _replace(tree, path, value):
    """tree with the leaf at path replaced (containers are rebuilt, never changed)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(tree, dict):
        new = dict(tree)
        new[head] = _replace(tree[head], rest, value)
        return new
    items = list(tree)
    items[head] = _replace(tree[head], rest, value)
    return type(tree)(items)


def _get(tree, path):
    for p in path:
        tree = tree[p]
    return tree


def _total(out):
    """The sum of every float in a (nested) result: what a ones sensitivity differentiates."""
    if out is None:
        return 0.0
    if isinstance(out, (tuple, list)):
        return sum(_total(e) for e in out)
    if isinstance(out, dict):
        return sum(_total(out[k]) for k in sorted(out))
    return float(np.sum(out))


def _zeros_like_args(tree):
    """The expected shape of a gradient: zeros for float leaves, None for the rest."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_zeros_like_args(e) for e in tree)
    if isinstance(tree, dict):
        return {k: _zeros_like_args(v) for k, v in tree.items()}
    if not _is_float_leaf(tree):
        return None
    if isinstance(tree, float):
        return 0.0
    return np.zeros(np.shape(tree))


def fd_grad(f, args, eps=EPS):
    """Central finite differences of _total(f(*args)) for every float in args (nested).

    Returns a tuple mirroring args: a float for a float, an array for an array,
    a list / tuple / dict for a container, None for an int or a bool.
    """
    args = tuple(args)
    grads = _zeros_like_args(args)
    for path, leaf in _float_leaves(args):
        a = np.asarray(leaf, dtype=np.float64)
        g = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            vals = []
            for s in (eps, -eps):
                b = a.copy()
                b[idx] += s
                new = float(b) if isinstance(leaf, float) else b
                vals.append(_total(f(*_copy(_replace(args, path, new)))))
            g[idx] = (vals[0] - vals[1]) / (2 * eps)
        grads = _replace(grads, path, float(g) if isinstance(leaf, float) else g)
    return grads


def _assert_tree_close(actual, expected, where="", rtol=1e-6, atol=1e-7):
    """Same structure (container types, dict keys, None where expected) and close values."""
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), \
            f"{where}: expected a {type(expected).__name__}, got {type(actual).__name__}: {actual!r}"
        assert len(actual) == len(expected), f"{where}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            _assert_tree_close(a, e, f"{where}[{i}]", rtol, atol)
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected a dict, got {actual!r}"
        assert set(actual) == set(expected), f"{where}: keys {set(actual)} != {set(expected)}"
        for k in expected:
            _assert_tree_close(actual[k], expected[k], f"{where}[{k!r}]", rtol, atol)
        return
    if expected is None:
        assert actual is None, f"{where}: expected no gradient (None), got {actual!r}"
        return
    assert actual is not None, f"{where}: got no gradient (None), expected {expected!r}"
    if isinstance(expected, float):
        assert np.ndim(actual) == 0, f"{where}: expected a scalar, got {actual!r}"
    else:
        assert np.shape(actual) == np.shape(expected), \
            f"{where}: shape {np.shape(actual)} != {np.shape(expected)}"
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), expected, rtol=rtol,
                               atol=atol * scale, err_msg=where)


def _has_dict(tree):
    if isinstance(tree, dict):
        return True
    if isinstance(tree, (tuple, list)):
        return any(_has_dict(e) for e in tree)
    return False


def _writes_into_arguments(fn, args):
    before = _copy(args)
    after = _copy(args)
    fn(*after)
    return any(not np.array_equal(a, b) for (_, a), (_, b) in
               zip(_float_leaves(tuple(before)), _float_leaves(tuple(after))))


def _check_gradients(fn, args, order):
    """check_grads and finite differences of the plain function, at order 1 or 2."""
    args = tuple(args)
    plain = not _has_dict(args) and not _has_dict(fn(*_copy(args))) \
        and not _writes_into_arguments(fn, args)
    if plain:      # check_grads walks tuples and lists but not dicts, and does not copy
        check_grads(fn, list(_copy(args)), order=order)
    if order == 1:
        _assert_tree_close(grad_all(fn)(*_copy(args)), fd_grad(fn, args),
                           f"grad_all({fn.__name__})")
    else:
        g = grad_all(fn)
        _assert_tree_close(grad_all(g)(*_copy(args)), fd_grad(g, args),
                           f"grad_all(grad_all({fn.__name__}))", rtol=1e-5, atol=1e-6)


def _assert_refused(feature, fn, args):
    expected = S2SADError if feature in ("call", "containers") else UnsupportedSyntaxError
    try:
        result = grad_all(fn)(*_copy(args))
    except expected as e:
        assert CORPUS_FILE in str(e), f"the error does not name {CORPUS_FILE}:\n{e}"
        return e
    except Exception as e:       # noqa: BLE001  (a crash in generated code is not a refusal)
        pytest.fail(f"{fn.__name__} ({feature!r} is not implemented) raised "
                    f"{type(e).__name__} instead of {expected.__name__}: {e}")
    pytest.fail(f"{fn.__name__} uses {feature!r}, which is not implemented, but s2sad "
                f"transformed it: grad_all gave {result!r} (finite differences: "
                f"{fd_grad(fn, args)!r})")


# ---------------------------------------------------------------------------
# the corpus itself
# ---------------------------------------------------------------------------

def test_corpus_entries_are_well_formed():
    for feature, fn, args in cc.CORPUS:
        assert feature in cc.FEATURES, feature
        assert fn.__doc__ and fn.__doc__.strip(), f"{fn.__name__} needs a docstring"
        assert fn.__module__ == cc.__name__, f"{fn.__name__} must be defined in control_corpus"
        assert isinstance(args, tuple)
    assert {f for f, _, _ in cc.CORPUS} == set(cc.FEATURES), "every feature has entries"
    names = {fn.__name__ for _, fn, _ in cc.CORPUS}
    assert set(cc.ALSO_NEEDS) <= names
    for needs in cc.ALSO_NEEDS.values():
        assert set(needs) <= set(cc.FEATURES)
    assert IMPLEMENTED <= set(cc.FEATURES)
    assert SUPPORTED_EARLY <= names


def _line_trace(fn, args):
    """The sequence of corpus lines that a plain call executes."""
    lines = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != cc.__file__:
            return None
        if event == "line":
            lines.append((frame.f_code.co_name, frame.f_lineno))
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(*_copy(args))
    finally:
        sys.settrace(old)
    return lines


@pytest.mark.parametrize("feature,fn,args", cc.CORPUS, ids=_ids(cc.CORPUS))
def test_perturbations_do_not_change_the_path(feature, fn, args):
    """Ten times the finite difference step in random directions takes the same branches
    and the same number of loop iterations: the corpus has no branch near its arguments."""
    args = tuple(args)
    rng = np.random.default_rng(1)
    base = _line_trace(fn, args)
    leaves = _float_leaves(args)
    for _ in range(3):
        for sign in (1.0, -1.0):
            moved = args
            for path, leaf in leaves:
                step = 10 * EPS * sign * rng.standard_normal(np.shape(leaf))
                moved = _replace(moved, path, (leaf + float(step)) if isinstance(leaf, float)
                                 else leaf + step)
            assert _line_trace(fn, moved) == base, f"{fn.__name__} takes another path"


# ---------------------------------------------------------------------------
# refused until implemented, then right
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("feature,fn,args", REFUSED, ids=_ids(REFUSED))
def test_refused_until_implemented(feature, fn, args):
    _assert_refused(feature, fn, args)


@pytest.mark.parametrize("feature,fn,args", CHECKED, ids=_ids(CHECKED))
def test_order1(feature, fn, args):
    _check_gradients(fn, args, order=1)


@pytest.mark.parametrize("feature,fn,args", CHECKED, ids=_ids(CHECKED))
def test_order2(feature, fn, args):
    _check_gradients(fn, args, order=2)


@pytest.mark.parametrize("feature,fn,args", MUTATION, ids=_ids(MUTATION))
def test_mutation_is_right_or_refused(feature, fn, args):
    """An in-place write is differentiated right or refused when transformed; never wrong."""
    try:
        grad_all(fn)(*_copy(args))
    except S2SADError as e:
        assert CORPUS_FILE in str(e), f"the error does not name {CORPUS_FILE}:\n{e}"
        return
    _check_gradients(fn, args, order=1)
    _check_gradients(fn, args, order=2)


# ---------------------------------------------------------------------------
# closed forms: the corpus numbers are right (always), and so is s2sad (once implemented)
# ---------------------------------------------------------------------------

def _rnn_closed_form(W, h0, n):
    hs = [h0]
    for _ in range(n):
        hs.append(np.tanh(W @ hs[-1]))
    dh = 2 * hs[-1]
    dW = np.zeros_like(W)
    for t in range(n, 0, -1):
        dz = dh * (1 - hs[t] ** 2)
        dW += np.outer(dz, hs[t - 1])
        dh = W.T @ dz
    return dW, dh, None


def _power_closed_form(x, n):
    s = np.sin(x)
    return (n * x ** (n - 1) + (n - 1) * s ** (n - 2) * np.cos(x), None)


CLOSED_FORMS = {
    # name: (args, the gradients of every argument)
    "if_scalar+": ((0.7,), lambda x: (2 * (np.sin(x) + x * np.cos(x)),)),
    "if_scalar-": ((-0.6,), lambda x: (6 * x ** 2,)),
    "chained_comparison": ((1.7,), lambda x: (1 / x,)),
    "for_range_n": ((0.7, 5), lambda x, n: (float(np.polyval(
        np.polyder([1.0, 0, 1, 2, 3, 4, 5]), x)), None)),     # x^6 + x^4 + 2x^3 + ... + 5
    "for_range_n-zero": ((0.7, 0), lambda x, n: (1.0, None)),
    "newton_sqrt": ((2.0,), lambda a: (0.5 / np.sqrt(a),)),
    "while_true_break": ((2.0,), lambda a: (0.5 / np.sqrt(a),)),
    # four halvings: y = x / 16
    "while_norm_halving": ((np.array([0.6, -0.8]),),
                           lambda x: (np.cos(x / 16) / 16 + x / 8,)),
    # s = x^2 (1 + 2 + 3 + 4 + 5) = 15 x^2 after the break; s * x = 15 x^3
    "break_on_threshold": ((0.7,), lambda x: (45 * x ** 2,)),
    # n = 2 breaks: s = x (x (x) + 1) + 1 -> x^3 + x + 1; n = 7: 10 (x^5 + x^3 + x^2 + x + 1)
    "for_else-break": ((0.8, 2), lambda x, n: (3 * x ** 2 + 1, None)),
    "for_else-no-break": ((0.8, 7), lambda x, n: (10 * (5 * x ** 4 + 3 * x ** 2 + 2 * x + 1),
                                                   None)),
    # s = x + 1, then x^2 + x + 1 > 4 at x = 1.5: 2 (x^2 + x + 1)
    "return_from_loop": ((1.5,), lambda x: (2 * (2 * x + 1),)),
    # (a tanh x + b)^2 summed
    "closure_from_factory": ((np.array([0.3, -0.5]), 0.7, -0.4), lambda x, a, b: (
        2 * (a * np.tanh(x) + b) * a * (1 - np.tanh(x) ** 2),
        float(np.sum(2 * (a * np.tanh(x) + b) * np.tanh(x))),
        float(np.sum(2 * (a * np.tanh(x) + b))))),
    # all three lambdas see i = 2: sum sin(2 x + a)
    "closure_late_binding": ((np.array([0.3, -0.5]), 0.7), lambda x, a: (
        3 * 2 * np.cos(2 * x + a), float(3 * np.sum(np.cos(2 * x + a))))),
    # k = a (the default), the later a = 3a adds 3a per element
    "closure_default_argument": ((np.array([0.3, -0.5]), 0.7), lambda x, a: (
        np.full(2, a), float(np.sum(x) + 3 * 2))),
    "closure_reads_later_value": ((np.array([0.3, -0.5]), 0.7), lambda x, a: (
        np.full(2, a * a + 1), float(np.sum(x) * 2 * a))),
    "call_recursive_power": ((np.array([0.3, -0.5]), 4), _power_closed_form),
    "rnn": ((cc._W3, cc._h3, 4), _rnn_closed_form),
    "set_element_of_copy": ((np.array([0.3, -0.5, 0.9]),), lambda x: (
        np.array([4 * (2 * x[0] + x[1]), 2 * (2 * x[0] + x[1]) + 2 * x[1], 2 * x[2]]),)),
    "tuple_argument": (((cc._A32, cc._b3), cc._x2), lambda p, x: (
        (np.outer(1 - np.tanh(p[0] @ x + p[1]) ** 2, x), 1 - np.tanh(p[0] @ x + p[1]) ** 2),
        p[0].T @ (1 - np.tanh(p[0] @ x + p[1]) ** 2))),
    "dict_argument": (({"W": cc._A32, "v": cc._b3, "c": 0.5}, cc._x2), lambda p, x: (
        {"W": np.outer(p["v"] * (1 - np.tanh(p["W"] @ x) ** 2), x),
         "v": np.tanh(p["W"] @ x), "c": 2 * p["c"]},
        p["W"].T @ (p["v"] * (1 - np.tanh(p["W"] @ x) ** 2)))),
}


def _closed_form_function(key):
    name = key.split("-")[0].rstrip("+")
    return getattr(cc, name)


def _closed_form_entry(key):
    fn = _closed_form_function(key)
    for feature, f, _ in cc.CORPUS:
        if f is fn:
            return feature, fn
    raise AssertionError(key)


@pytest.mark.parametrize("key", sorted(CLOSED_FORMS))
def test_closed_forms_match_finite_differences(key):
    """The corpus functions compute what their closed forms say (no s2sad involved)."""
    args, expected = CLOSED_FORMS[key]
    fn = _closed_form_function(key)
    _assert_tree_close(fd_grad(fn, args), tuple(expected(*args)), key)


@pytest.mark.parametrize("key", sorted(CLOSED_FORMS))
def test_closed_forms(key):
    feature, fn = _closed_form_entry(key)
    args, expected = CLOSED_FORMS[key]
    if not _checked(feature, fn):
        pytest.skip(f"{feature!r} is not implemented yet")
    _assert_tree_close(grad_all(fn)(*_copy(args)), tuple(expected(*args)), key,
                       rtol=1e-9, atol=1e-10)


# ---------------------------------------------------------------------------
# loops: the generated code does not depend on the trip count
# ---------------------------------------------------------------------------

def decay_loop(x, n):
    """s = s * 0.99999 + x, n times: s_n = x (1 - r^n) / (1 - r)."""
    s = 0.0 * x
    for i in range(n):
        s = s * 0.99999 + x
    return s


def _code(text):
    """Generated source without comments (the `# grad of:` lines quote user code)."""
    return "\n".join(line.split("#")[0] for line in text.splitlines())


@pytest.mark.skipif("for" not in IMPLEMENTED, reason="loops not implemented yet")
def test_loop_source_does_not_depend_on_the_trip_count():
    g = grad_all(decay_loop)
    x = np.array([0.5, -1.0])
    spec = call_spec(g.params(), (x, 10), {})
    g(x, 10)
    art = g.artifact(spec)
    text = art.module.source
    g(x, 10_000)
    assert g.artifact(spec) is art, "the transform was not reused for another trip count"
    assert art.module.source == text
    assert s2sad.source(g.generated_function(spec=spec)) == text
    code = _code(text)
    assert "for " in code or "while " in code, f"no loop in the generated code:\n{text}"
    # the body's constant appears a fixed number of times (forward and backward), not 10
    assert code.count("0.99999") <= 4, f"the loop body is repeated:\n{text}"
    assert len(text.splitlines()) < 150, f"the generated code is too long:\n{text}"


@pytest.mark.skipif("for" not in IMPLEMENTED, reason="loops not implemented yet")
def test_long_loop_does_not_recurse():
    """100,000 iterations: no RecursionError, and the closed form (1 - r^n) / (1 - r)."""
    n, r = 100_000, 0.99999
    expected = (1 - r ** n) / (1 - r)
    x = np.array([0.5, -1.0])
    try:
        gx, gn = grad_all(decay_loop)(x, n)
    except RecursionError:        # pragma: no cover - the failure this test guards
        pytest.fail("a 100,000-iteration loop hit the recursion limit")
    assert gn is None
    np.testing.assert_allclose(gx, [expected, expected], rtol=1e-9)
    gs = s2sad.grad(decay_loop)(0.25, n)
    assert gs == pytest.approx(expected, rel=1e-9)
