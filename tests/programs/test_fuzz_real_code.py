"""The differential fuzzer on the Python of published code (s2sad.fuzz.gen_real).

Random draws (a module RandomState, a generator made inside, NumPy's global one),
objects and methods (a counter on an object, a class and a dataclass built inside, a
namedtuple, f itself a bound method), strings (f-strings, format, print), sequences
(concatenation, f(*t), zip(*pairs), map, partial, reduce, filter, sorted with a key,
np.zeros(*shape)) and functions in containers, written by the generator and checked by the
oracle: the generators re-seeded before every evaluation, and the effects check (s2sad's
calls leave the generators, the counters and the printed text as a plain call does).
Small fixed-seed campaigns at order 1 and 2 keep this part of the grammar in CI; the full
fuzzer runs it with ``python -m s2sad.fuzz --real-code 3 --by-construct real``.
"""

import contextlib
import io

import numpy as np
import pytest

import s2sad
from s2sad.fuzz import kinks
from s2sad.fuzz.campaign import run_campaign
from s2sad.fuzz.gen import GenConfig, generate
from s2sad.fuzz.gen_numpy_calls import CALL_STATEMENTS
from s2sad.fuzz.gen_real import REAL_CONSTRUCTS, REAL_STATEMENTS
from s2sad.fuzz.oracle import pick_inputs, printed_alike, run_program
from s2sad.fuzz.shrink import candidates

REAL_SEED = 20250301
# constructs with an open s2sad bug (see the fuzzer's findings); a construct is taken out
# here, never by loosening the oracle.  None now: namedtuple_inside, namedtuple_unpack,
# list_iadd and repr_format (f"{v!r}" of math.sqrt(...), which printed np.float64(...)
# in s2sad's code) were open bugs, fixed since; they keep their names so a campaign can
# leave them out.
OPEN_BUGS = frozenset()
CONFIG = GenConfig(real_code=3.0, exclude=OPEN_BUGS)


@pytest.mark.parametrize("checks,n", [(("grad", "vjp", "jvp"), 40), (("grad", "order2"), 15)])
def test_real_code_campaign(checks, n):
    # the limit catches a hang, not a slow transform: program 12 (a dict of lists appended
    # to, in branches and loops) takes 12 s per first-order check and 30 s at order 2 on a
    # shared two-core machine, mostly the in-place alias checks of its lowering
    summary = run_campaign(n, seed=REAL_SEED, checks=checks, config=CONFIG, timeout=90.0)
    assert not summary.failures, summary.failure_report()
    assert summary.counts["ok"] >= n // 3, summary.report()
    seen = {c for c, cls in summary.by_construct if cls == "ok"} & set(REAL_CONSTRUCTS)
    assert len(seen) >= 8, (sorted(seen), summary.report())


# -- the generator ------------------------------------------------------------------------

def test_every_real_construct_is_written_and_runs_as_plain_numpy():
    seen, raised = set(), []
    config = GenConfig(real_code=3.0)
    for i in range(120):
        p = generate(5, i, config)
        seen |= p.constructs
        with contextlib.redirect_stdout(io.StringIO()):
            args, reason = pick_inputs(p.source, p.params, np.random.default_rng(i))
        if args is None and "raises" in reason:
            raised.append((i, reason, p.source))
    assert not raised, raised[0]
    missing = {c for _, c, _ in REAL_STATEMENTS + CALL_STATEMENTS} - seen
    assert not missing, missing
    assert "bound_method" in seen


def test_real_code_weight_zero_writes_none_of_it():
    for i in range(40):
        p = generate(5, i, GenConfig(real_code=0.0))
        assert not p.constructs & set(REAL_CONSTRUCTS), p.source


def test_excluded_real_constructs_stay_out():
    config = GenConfig(real_code=3.0, exclude=frozenset({"rand_global", "print", "map",
                                                          "bound_method", "repr_format"}))
    for i in range(60):
        p = generate(6, i, config)
        assert not p.constructs & config.exclude
        assert "np.random.rand" not in p.source and "MODEL" not in p.source
        assert "!r" not in p.source and "map(" not in p.source and "print(" not in p.source


# -- the oracle: draws, counters, printing -------------------------------------------------

DRAWS = '''import numpy as np

RS = np.random.RandomState(3)
RNG = np.random.default_rng(4)


class Scaler:
    def __init__(self, k):
        self.k = k
        self.calls = 0

    def apply(self, a):
        self.calls += 1
        return np.tanh(a * self.k)


OBJ = Scaler(0.7)


def f(x, y):
    e = RS.randn(3)
    s = e * np.exp(0.5 * np.tanh(x)) + x
    n = np.random.randn(*x.shape)
    rng = np.random.default_rng(3)
    m = rng.normal(size=x.shape)
    u = RNG.normal(size=3)
    print(f"loss {y:.3f}", "{:.2f}".format(np.sum(x)))
    return np.sum(OBJ.apply(s) * y + n * x + m * x ** 2 + u * np.sin(x))
'''
PARAMS = [("x", "v"), ("y", "f")]


@pytest.mark.parametrize("checks", [["grad", "vjp", "jvp"], ["order2"]])
def test_draws_are_the_same_constants_at_every_evaluation(checks):
    outcome = run_program(DRAWS, PARAMS, checks, seed=1)
    assert outcome.cls == "ok", outcome


def _extra_draw(real):
    def make(f, *a, **k):
        g = real(f, *a, **k)

        def call(*args):
            out = g(*args)
            np.random.rand()            # one number more than a plain call draws
            return out
        return call
    return make


def _twice(real):
    def make(f, *a, **k):
        g = real(f, *a, **k)

        def call(*args):
            out = g(*args)
            state = [(v, v.get_state()) for v in f.__globals__.values()
                     if isinstance(v, np.random.RandomState)]
            f.__globals__["OBJ"].apply(args[0])     # the counter goes up once more
            for v, s in state:
                v.set_state(s)
            return out
        return call
    return make


def _prints(real):
    def make(f, *a, **k):
        g = real(f, *a, **k)

        def call(*args):
            print("extra")
            return g(*args)
        return call
    return make


@pytest.mark.parametrize("wrap,says", [(_extra_draw, "generators draw"),
                                       (_twice, "counters"), (_prints, "printed")])
def test_the_effects_check_sees_a_call_that_differs_from_a_plain_one(monkeypatch, wrap, says):
    monkeypatch.setattr(s2sad, "value_and_grad", wrap(s2sad.value_and_grad))
    outcome = run_program(DRAWS, PARAMS, ["grad"], seed=1)
    assert outcome.cls == "wrong" and outcome.check == "effects", outcome
    assert says in outcome.message


def test_printed_numbers_differing_in_their_last_digits_are_alike():
    assert printed_alike("value: 0.8241850868450135\n", "value: 0.8241850868450133\n")
    assert printed_alike("[0.1 0.2] -> 1.5e-03", "[0.1 0.2] -> 1.5000000000001e-03")
    assert not printed_alike("np.float64(2.6) +2.62e+00", "2.6 +2.62e+00")   # a repr
    assert not printed_alike("loss 0.742", "loss 0.743")
    assert not printed_alike("loss 0.742", "loss 0.742\nloss 0.742")


def test_a_program_that_prints_prints_nothing_through_the_oracle(capsys):
    assert run_program(DRAWS, PARAMS, ["grad"], seed=1).cls == "ok"
    assert "loss" not in capsys.readouterr().out


def test_a_bound_method_is_differentiated_and_shrunk():
    src = '''import numpy as np


class Model:
    def __init__(self, k):
        self.k = k
        self.calls = 0

    def fun(self, x, y, n):
        self.calls += 1
        v = np.sin(x) * self.k
        w = v * 2.0
        return np.sum(v * y)


MODEL = Model(0.6)
f = MODEL.fun
'''
    params = [("x", "v"), ("y", "f"), ("n", "i")]
    assert run_program(src, params, ["grad", "vjp", "jvp"], seed=2).cls == "ok"
    dropped = [(c, p) for c, p, k in candidates(src, params) if k is not None]
    assert dropped and dropped[0][1] == params[:2]
    assert "def fun(self, x, y):" in dropped[0][0]


# -- the kink filter --------------------------------------------------------------------------

@pytest.mark.parametrize("expr,value,is_kink", [
    ("sorted([(y, 1.0), (0.5, 2.0)], key=operator.itemgetter(0))[0][1]", 0.502, True),
    ("sorted([(y, 1.0), (0.5, 2.0)], key=operator.itemgetter(0))[0][1]", 0.9, False),
    ("max([(y, 1.0), (0.5, 2.0)], key=lambda q: q[0])[1]", 0.5004, True),
    ("min(e * y for e in [1.0, 2.0, 0.5])", 0.7, False),
    ('len("value=%.3f" % y)', 0.7, False)])
def test_kinks_of_sequences(expr, value, is_kink):
    src = f"import operator\n\nimport numpy as np\n\n\ndef f(y):\n    return {expr}\n"
    m, where, result = kinks.margin(src, [value])
    assert (m < kinks.THRESHOLD) == is_kink, (m, where)
    assert result == eval(expr, {"operator": __import__("operator"), "y": value, "np": np})


def test_the_kink_filter_sees_the_oracles_draws():
    src = "import numpy as np\n\n\ndef f(y):\n    return np.random.randn() * y\n"
    np.random.seed(kinks.RANDOM_SEED)
    want = np.random.randn() * 0.7
    assert kinks.margin(src, [0.7])[2] == want
