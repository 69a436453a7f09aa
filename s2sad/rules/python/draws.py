"""Random draws whose parameters carry a derivative: the shape of a rewritten draw, and
why every other draw is refused.

transforms/lowering/draws.py writes such a draw of a NumPy generator as the standard
draw and the map NumPy applies to it (``rng.normal(mu, sigma)`` as
``mu + sigma * rng.standard_normal(shape)``).  ``draw_shape`` is the one helper that code
calls: the shape NumPy draws (``size``, or the parameters' broadcast shape), after the
checks NumPy makes of the parameters, raising NumPy's own errors, so that a call NumPy
refuses is refused before a number is drawn and the generator is left as it was.

Every other draw (gamma, beta, poisson, choice, multivariate_normal, ...) has no such
exact form: ``draw_refusal`` is its error where a derivative would flow into its
parameters, with the reparameterization to write by hand where one exists.  Integer
draws are refused too, not given a zero derivative: zero is not how their
distribution changes.
"""

import numpy as np

from ... import registry
from ...errors import UnsupportedSyntaxError
from ...registry import defnondiff

# parameters NumPy requires to be >= 0 (its ValueError names them), per rewritten draw
_NONNEGATIVE = {"normal": (1, "scale"), "exponential": (0, "scale"),
                "lognormal": (1, "sigma"), "laplace": (1, "scale"), "gumbel": (1, "scale"),
                "logistic": (1, "scale")}


def draw_shape(name, size, *params, generator=None, batched=()):
    """The shape that `generator.name(*params, size=size)` draws, after NumPy's checks of
    params (scale < 0, high - low < 0 or not finite, a size the parameters do not
    broadcast to), raising NumPy's errors.  generator: the receiver where s2sad did not
    know it when it made the code (a parameter): refused unless it is NumPy's.
    batched: under vmap, a flag per positional argument (name, size, *params): a batched
    parameter's examples are stacked on its first axis, and the shape is one example's."""
    if generator is not None and not isinstance(
            generator, (np.random.Generator, np.random.RandomState)) and \
            generator is not np.random:
        raise UnsupportedSyntaxError(
            f"the draw `.{name}()` of a {type(generator).__name__} object, where a derivative "
            "would flow into its parameters", None,
            "s2sad differentiates the draws of NumPy's generators (np.random.default_rng(), "
            "np.random.RandomState, np.random.*) by the standard draw NumPy makes them from: "
            "write that draw yourself (mu + sigma * z, z a draw without differentiated "
            "parameters).")
    params = [np.asarray(p, dtype=np.float64) for p in params]
    _check(name, params, generator)
    flags = tuple(batched[2:]) + (False,) * len(params)
    shapes = [np.shape(p)[1:] if b else np.shape(p) for p, b in zip(params, flags)]
    if size is None:
        return np.broadcast_shapes(*shapes)
    shape = tuple(int(n) for n in np.reshape(np.asarray(size, dtype=np.intp), -1))
    drawn = np.broadcast_shapes(shape, *shapes)
    if drawn != shape:
        raise ValueError(f"Output size {shape} is not compatible with broadcast dimensions "
                         f"of inputs {drawn}.")
    return shape


def _check(name, params, generator):
    """NumPy's checks of a draw's parameters (its ValueError and OverflowError)."""
    if name in _NONNEGATIVE:
        k, what = _NONNEGATIVE[name]
        if _negative(params[k]):
            raise ValueError(f"{what} < 0")
    if name == "uniform":
        width = params[1] - params[0]
        if not np.all(np.isfinite(width)):
            raise OverflowError("high - low range exceeds valid bounds" if isinstance(
                generator, np.random.Generator) and width.ndim == 0 and params[0].ndim == 0
                else "Range exceeds valid bounds")
        if isinstance(generator, np.random.Generator) and _negative(width):
            raise ValueError("high - low < 0")


def _negative(v) -> bool:
    """NumPy's `< 0` of a parameter: its sign bit set (-0.0 too), nan allowed."""
    return bool(np.any(np.logical_and(np.signbit(v), np.logical_not(np.isnan(v)))))


defnondiff(draw_shape)


# -- refusals ---------------------------------------------------------------------------

_REWRITTEN = "normal, uniform, exponential, lognormal, laplace, gumbel and logistic"

_INTEGER = frozenset({
    "integers", "randint", "random_integers", "poisson", "binomial", "negative_binomial",
    "geometric", "hypergeometric", "zipf", "logseries", "multinomial",
    "multivariate_hypergeometric", "choice", "permutation", "permuted", "shuffle",
    "tomaxint", "bytes"})

_BY_HAND = {
    "gamma": "NumPy draws gamma(k, theta) as theta * standard_gamma(k): write "
             "`theta * rng.standard_gamma(k, size)` to differentiate in theta; the shape k "
             "cannot carry a derivative (NumPy draws it by rejection).",
    "multivariate_normal": "NumPy factors cov by an SVD (or `method`) before it draws: "
                           "write `mean + rng.standard_normal(size + (n,)) @ "
                           "np.linalg.cholesky(cov).T` (the same distribution, other "
                           "numbers).",
    "weibull": "write `np.power(rng.standard_exponential(size), 1 / a)` (the same "
               "distribution).",
    "rayleigh": "write `scale * np.sqrt(2 * rng.standard_exponential(size))` (the same "
                "distribution).",
    "pareto": "write `np.expm1(rng.standard_exponential(size) / a)` (the same "
              "distribution).",
    "power": "write `np.power(-np.expm1(-rng.standard_exponential(size)), 1 / a)` (the "
             "same distribution).",
}


def draw_refusal(name):
    """The error of the draw `name` where a derivative would flow into its parameters."""
    if name in _INTEGER:
        why = (f"`.{name}()` draws integers (or picks items): its value is piecewise "
               "constant in its parameters, with a derivative of zero almost everywhere, "
               "which is not how its distribution changes, so s2sad refuses it rather than "
               "give zero. Estimate that with a score-function (REINFORCE) gradient or a "
               "continuous relaxation (Gumbel-softmax for a choice), or pass the parameter "
               "through s2sad.stop_gradient(...) if it is meant as a constant.")
    else:
        why = (f"the value of `.{name}()` is not an exact function of its parameters given "
               "the generator's state (NumPy draws it by rejection or from other draws). "
               + _BY_HAND.get(name, "Where the distribution has a reparameterization (its "
                              "inverse cdf of `rng.random(size)`, or a transform of "
                              "standard draws), write it by hand, the standard draws' "
                              "parameters constants."))

    def refusal(src):
        return UnsupportedSyntaxError(
            f"the random draw `.{name}()` with a parameter that carries a derivative", src,
            f"A draw's parameters can carry a derivative only where NumPy computes its "
            f"value from a standard draw by a formula in them ({_REWRITTEN}: s2sad writes "
            f"rng.normal(mu, sigma) as mu + sigma * rng.standard_normal(shape)); {why}")
    return refusal


DRAWS = frozenset(n for cls in (np.random.Generator, np.random.RandomState)
                  for n in dir(cls) if not n.startswith("_")) - {
    "bit_generator", "spawn", "get_state", "set_state", "seed"}


for _name in sorted(DRAWS - {"bytes"}):      # (np.bytes: NumPy warns of its future)
    _fn = getattr(np.random, _name, None)
    if callable(_fn) and getattr(_fn, "__self__", None) is np.random.mtrand._rand:
        registry.primitive(_fn).refusal = draw_refusal(_name)     # np.random.gamma(k)
