"""A Kirchhoff plate solved by a physics-informed neural network, in NumPy + s2sad.

Run: python examples/plate.py            (python examples/plate.py --help for options)

The plate covers x in [-1, 1], y in [-0.5, 0.5] (metres). Its deflection w
solves the biharmonic equation

    w_xxxx + 2 w_xxyy + w_yyyy = q / D,      D = E h^3 / (12 (1 - mu^2)),

with E = 2.1e11 Pa, mu = 0.28, h = 0.01 m and a uniform load q = 1000 N/m^2.
The plate is simply supported at x = +-1 (w = 0, w_xx = 0) and free at
y = +-0.5 (no bending moment, w_yy + mu w_xx = 0, and no Kirchhoff shear,
w_yyy + (2 - mu) w_xxy = 0). Its exact solution is Levy's series
(levy_deflection below): the largest deflection, 12.18 mm, is at the middle
of the free edges, and the centre deflects 11.46 mm.

A multilayer perceptron w(params, x, y) (SiLU activations) is trained so that
the PDE residual and the boundary conditions vanish at random points. Every
derivative comes from s2sad: the per-point w_xx, w_xxy, w_xxxx, ... by nesting
a per-point derivative transform (make_derivatives), and the gradient of the
loss with respect to the parameter list by s2sad.value_and_grad. Nothing here
is differentiated by hand.

Why non-dimensionalise. In SI units the right-hand side q / D is 0.053 1/m^3
and the answer is about 0.01 m, while the network's output and its
derivatives start out of order one. Trained on raw units, the residual term
would be dominated by the network's initial curvature, the boundary terms
(of size w ~ 1e-2, w squared ~ 1e-4) would be invisible next to it, and any
loss weights would have to absorb factors of 1e2 to 1e4 that say nothing about
the problem. Writing w = (q / D) * u with the lengths already of order one
(the plate is 2 m by 1 m) gives

    u_xxxx + 2 u_xxyy + u_yyyy = 1,

with the same (homogeneous) boundary conditions on u, and u of order 0.2: every
term of the loss is then of order one and plain weights work. The network
learns u; results are converted back to metres with W_SCALE = q / D.

Derivative modes (--mode). The per-point derivative functions are built in
one place, make_derivatives(mode):

* reverse: nested s2sad.grad with its ones-sensitivity (grad of the sum of a
  per-point function is the per-point derivative). s2sad writes grad of a
  gradient forward over reverse (the same derivative: second derivatives
  commute), so w_xxxx is 135 lines; reverse over reverse wrote 1108.
* forward: nested s2sad.derivative (a ones tangent on one argument), the
  natural way to take per-point derivatives: 77 lines for w_xxxx, and a
  training step about 5x faster (benchmarks/plate.py).
* taylor (the default): s2sad.derivative(w, wrt=..., order=...), one pass of
  Taylor mode per derivative, w_xxyy Taylor mode over Taylor mode (docs/taylor.md).

The loss gradient itself is always reverse mode (value_and_grad of the loss).

Training has two stages. Adam on a fresh random batch of points each step
finds the right shape; then Gauss-Newton (Levenberg-Marquardt) minimises the
loss at one fixed set of points. The loss is a sum of squares of per-point
residuals r (the PDE at the interior points, the boundary conditions at the
edges), so each step solves (J^T J + lambda I) delta = -J^T r by Cholesky, with
the Jacobian J of r with respect to the weights from s2sad.vmap of
s2sad.value_and_grad over the points: one row per point, Taylor mode inside.
It takes the error from about 10% to a few hundredths of a percent in a few
hundred iterations. L-BFGS (scipy.optimize.minimize, method L-BFGS-B, --lbfgs N)
can run between the two; it stalls near 0.1% on this problem (docs/plate.md).
"""

import argparse
import importlib.util
import math
import os
import sys
import time

if __name__ == "__main__":
    # The matrices are small (points x 64): BLAS threads only add overhead and, on a
    # shared machine, contention. One thread unless the caller says otherwise.
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import numpy as np

import s2sad

# -- the plate ------------------------------------------------------------------------
E = 2.1e11                                  # Young's modulus, Pa
MU = 0.28                                   # Poisson's ratio
THICKNESS = 0.01                            # m
Q = 1000.0                                  # load, N/m^2
D = E * THICKNESS ** 3 / (12 * (1 - MU ** 2))   # flexural rigidity, N m
X_MIN, X_MAX = -1.0, 1.0                    # simply supported edges
Y_MIN, Y_MAX = -0.5, 0.5                    # free edges
A_LEN = X_MAX - X_MIN                       # a = 2: span between the supports
C_HALF = Y_MAX                              # c = 0.5: half-width
W_SCALE = Q / D                             # w = W_SCALE * u  (lengths in metres)

# 921 weights: fewer than the 1,800 residuals of the Gauss-Newton stage, whose normal
# equations are then 921 x 921 (the 4,321 weights of 2,32,64,32,1 would need more points,
# and a Cholesky factor five times as large, for the same error).
DEFAULT_SIZES = (2, 20, 20, 20, 1)

# Loss weights (--weights): residual, u = 0 and u_xx = 0 at the supports, moment and
# shear at the free edges. With the scaling below every term is of order one, and
# equal weights are the default. After 1,000 steps, weighting the support deflection by
# 10, 100 or 1000 or all edge terms by 10 gave 9-12% relative L2 error, against 8% for
# equal weights; in longer runs the free-edge moment is the term left over, and
# weighting it alone by 10 (--weights 1,1,1,10,1) reached 3.0% after 3,000 steps,
# against 5.1% for equal weights (Adam alone). With the L-BFGS stage equal weights are
# better: the default run with --weights 1,1,1,10,1 was at 0.22-0.38% from its 700th to
# its 1,400th L-BFGS iteration, against 0.045-0.096% for equal weights (docs/plate.md).
WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.0)


# -- the exact solution (Levy) ----------------------------------------------------------
def levy_coefficients(terms=50):
    """(m, alpha_m, w_m, A'_m, B'_m) for the first `terms` odd m.

    Levy's solution for a plate simply supported at x' = 0 and x' = a and free
    at y = +-c, under a uniform load q:

        w = sum over odd m of [w_m + A_m cosh(alpha y) + B_m alpha y sinh(alpha y)] sin(alpha x')

    with alpha = m pi / a and w_m = 4 q a^4 / (pi^5 m^5 D), the particular
    solution (the Fourier sine series of the load is sum 4 q / (m pi) sin(alpha x')).
    A_m, B_m make the moment and the Kirchhoff shear vanish at y = c (t = alpha c):

        (1 - mu) cosh t A + [2 cosh t + (1 - mu) t sinh t] B = mu w_m
        -(1 - mu) sinh t A + [(1 + mu) sinh t - (1 - mu) t cosh t] B = 0

    To stay finite for large m (cosh t overflows past m ~ 900) they are
    returned scaled: A' = A cosh t, B' = B cosh t, from the same system divided
    by cosh t.
    """
    m = 2.0 * np.arange(terms) + 1.0
    alpha = m * np.pi / A_LEN
    t = alpha * C_HALF
    w_m = 4 * Q * A_LEN ** 4 / (np.pi ** 5 * m ** 5 * D)
    th = np.tanh(t)
    a11 = np.full_like(t, 1 - MU)
    a12 = 2 + (1 - MU) * t * th
    a21 = -(1 - MU) * th
    a22 = (1 + MU) * th - (1 - MU) * t
    det = a11 * a22 - a12 * a21
    A = MU * w_m * a22 / det
    B = -MU * w_m * a21 / det
    return m, alpha, w_m, A, B


def _hyperbolic_over_cosh_t(s, t, odd):
    """sinh(s) / cosh(t) (odd) or cosh(s) / cosh(t), without overflow for |s| <= t."""
    e1 = np.exp(s - t)
    e2 = np.exp(-s - t)
    return ((e1 - e2) if odd else (e1 + e2)) / (1 + np.exp(-2 * t))


def levy_derivative(x, y, nx=0, ny=0, terms=50):
    """d^(nx + ny) w / dx^nx dy^ny of Levy's series at (x, y), in metres, term by term.

    x, y broadcast together; each term's derivatives are in closed form:
    d^n/dx^n sin(alpha x') = alpha^n sin(alpha x' + n pi / 2),
    d^n/dy^n cosh(alpha y) = alpha^n (cosh or sinh)(alpha y), and with s = alpha y,
    d^n/dy^n [s sinh s] = alpha^n [s S_n(s) + n S_(n-1)(s)], S_k = sinh for even k,
    cosh for odd k.
    """
    x = np.asarray(x, dtype=float)[..., None]
    y = np.asarray(y, dtype=float)[..., None]
    m, alpha, w_m, A, B = levy_coefficients(terms)
    t = alpha * C_HALF
    s = alpha * y
    xs = x - X_MIN
    fx = alpha ** nx * np.sin(alpha * xs + nx * np.pi / 2)
    cosh_part = _hyperbolic_over_cosh_t(s, t, odd=ny % 2 == 1)
    ssinh_part = s * _hyperbolic_over_cosh_t(s, t, odd=ny % 2 == 0)
    if ny > 0:
        ssinh_part = ssinh_part + ny * _hyperbolic_over_cosh_t(s, t, odd=ny % 2 == 1)
    fy = alpha ** ny * (A * cosh_part + B * ssinh_part)
    if ny == 0:
        fy = fy + w_m
    return np.sum(fx * fy, axis=-1)


def levy_deflection(x, y, terms=50):
    """Levy's series for the deflection w(x, y), in metres (x in [-1, 1], y in [-0.5, 0.5])."""
    return levy_derivative(x, y, 0, 0, terms)


# -- the network ------------------------------------------------------------------------
def silu(z):
    return z / (1 + np.exp(-z))


def w(params, x, y):
    """The network's u(x, y) (w in units of W_SCALE) at points x, y of shape (N, 1)."""
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        h = silu(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def make_params(sizes=DEFAULT_SIZES, seed=0, dtype=np.float64):
    """Glorot-normal weights and zero biases: a list of (W, b) tuples."""
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * math.sqrt(2.0 / (n_in + n_out))
        params.append((W.astype(dtype), np.zeros(n_out, dtype=dtype)))
    return params


# -- per-point derivatives: built in one place --------------------------------------------
def default_mode():
    if hasattr(s2sad, "taylor"):
        return "taylor"
    return "forward" if hasattr(s2sad, "derivative") else "reverse"


def make_derivatives(mode):
    """The per-point derivatives of w that the loss needs, as a dict of s2sad functions.

    Each has w's signature (params, x, y) and returns an (N, 1) array. reverse
    nests s2sad.grad (ones-sensitivity), forward nests s2sad.derivative (ones
    tangent).
    """
    if mode in _DERIVATIVES:
        return _DERIVATIVES[mode]
    if mode == "taylor":          # Taylor mode: order a in x, then (Taylor over Taylor) b in y
        def d(a, b):
            f = s2sad.derivative(w, wrt=1, order=a) if a else w
            return s2sad.derivative(f, wrt=2, order=b) if b else f
        _DERIVATIVES[mode] = {"w_" + "x" * a + "y" * b: d(a, b) for a, b in
                              [(1, 0), (2, 0), (3, 0), (4, 0), (2, 1), (2, 2), (0, 1), (0, 2),
                               (0, 3), (0, 4)]}
        return _DERIVATIVES[mode]
    if mode == "reverse":
        d = s2sad.grad
    elif mode == "forward":
        if not hasattr(s2sad, "derivative"):
            raise SystemExit("--mode forward needs s2sad.derivative, which this version of "
                             "s2sad does not have; use --mode reverse")
        d = s2sad.derivative
    else:
        raise ValueError(f"mode must be 'taylor', 'forward' or 'reverse', got {mode!r}")
    X, Y = 1, 2                                  # argument positions of x and y
    out = {}
    out["w_x"] = d(w, wrt=X)
    out["w_xx"] = d(out["w_x"], wrt=X)
    out["w_xxx"] = d(out["w_xx"], wrt=X)
    out["w_xxxx"] = d(out["w_xxx"], wrt=X)
    out["w_xxy"] = d(out["w_xx"], wrt=Y)
    out["w_xxyy"] = d(out["w_xxy"], wrt=Y)
    out["w_y"] = d(w, wrt=Y)
    out["w_yy"] = d(out["w_y"], wrt=Y)
    out["w_yyy"] = d(out["w_yy"], wrt=Y)
    out["w_yyyy"] = d(out["w_yyy"], wrt=Y)
    _DERIVATIVES[mode] = out
    return out


_DERIVATIVES = {}     # made once per mode: rebinding the same objects keeps s2sad's caches valid
MODE = None


def set_mode(mode=None):
    """Bind the module-level derivative functions (w_xx, w_xxxx, ...) for `mode`.

    The loss refers to them as globals; s2sad notices the rebinding and
    transforms the loss again on its next call. Returns the mode.
    """
    global MODE, w_x, w_xx, w_xxx, w_xxxx, w_xxy, w_xxyy, w_y, w_yy, w_yyy, w_yyyy
    mode = mode or default_mode()
    d = make_derivatives(mode)
    w_x, w_xx, w_xxx, w_xxxx = d["w_x"], d["w_xx"], d["w_xxx"], d["w_xxxx"]
    w_xxy, w_xxyy = d["w_xxy"], d["w_xxyy"]
    w_y, w_yy, w_yyy, w_yyyy = d["w_y"], d["w_yy"], d["w_yyy"], d["w_yyyy"]
    MODE = mode
    return mode


set_mode()


# -- the loss ---------------------------------------------------------------------------
def residual(params, x, y):
    """u_xxxx + 2 u_xxyy + u_yyyy - 1 at each point (the non-dimensional PDE)."""
    return w_xxxx(params, x, y) + 2 * w_xxyy(params, x, y) + w_yyyy(params, x, y) - 1.0


def moment(params, x, y):
    """The bending moment at free-edge points, over D: u_yy + mu u_xx (zero there)."""
    return w_yy(params, x, y) + MU * w_xx(params, x, y)


def shear(params, x, y):
    """The Kirchhoff shear at free-edge points, over D: u_yyy + (2 - mu) u_xxy (zero there)."""
    return w_yyy(params, x, y) + (2 - MU) * w_xxy(params, x, y)


def loss_terms(params, xi, yi, xs, ys, xf, yf):
    """Mean squares of: the PDE residual at (xi, yi); u and u_xx on the supported edges
    (xs, ys); the moment and the Kirchhoff shear on the free edges (xf, yf)."""
    r = residual(params, xi, yi)
    u_s = w(params, xs, ys)
    uxx_s = w_xx(params, xs, ys)
    m = moment(params, xf, yf)
    v = shear(params, xf, yf)
    return (np.mean(r ** 2), np.mean(u_s ** 2), np.mean(uxx_s ** 2),
            np.mean(m ** 2), np.mean(v ** 2))


def loss(params, xi, yi, xs, ys, xf, yf):
    """The weighted sum of loss_terms: what training minimises."""
    r2, u2, uxx2, m2, v2 = loss_terms(params, xi, yi, xs, ys, xf, yf)
    return (WEIGHTS[0] * r2 + WEIGHTS[1] * u2 + WEIGHTS[2] * uxx2
            + WEIGHTS[3] * m2 + WEIGHTS[4] * v2)


loss_and_grad = s2sad.value_and_grad(loss)      # gradient w.r.t. params: a list of (dW, db)


# -- sampling ---------------------------------------------------------------------------
def sample_points(rng, points=1000, edge_points=50, dtype=np.float64):
    """Random collocation points: (xi, yi) inside, (xs, ys) on x = +-1, (xf, yf) on y = +-0.5.

    Each is an (N, 1) array; each pair of edges gets edge_points points, split
    at random between its two edges.
    """
    def col(v):
        return v.reshape(-1, 1).astype(dtype)
    xi = rng.uniform(X_MIN, X_MAX, points)
    yi = rng.uniform(Y_MIN, Y_MAX, points)
    xs = rng.choice([X_MIN, X_MAX], edge_points)
    ys = rng.uniform(Y_MIN, Y_MAX, edge_points)
    xf = rng.uniform(X_MIN, X_MAX, edge_points)
    yf = rng.choice([Y_MIN, Y_MAX], edge_points)
    return tuple(col(v) for v in (xi, yi, xs, ys, xf, yf))


# -- Adam -------------------------------------------------------------------------------
def adam_init(params):
    """Adam's state: step count and first and second moments, shaped like params."""
    def zeros():
        return [(W * 0, b * 0) for W, b in params]
    return {"t": 0, "m": zeros(), "v": zeros()}


def adam_step(params, grads, state, lr=5e-4, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam update (Kingma & Ba, 2015); returns (new params, new state).

    Written with operators only, so it runs on NumPy and CuPy arrays alike.
    """
    t = state["t"] + 1
    c1 = 1 - beta1 ** t
    c2 = 1 - beta2 ** t
    new_params, new_m, new_v = [], [], []
    for p_layer, g_layer, m_layer, v_layer in zip(params, grads, state["m"], state["v"]):
        ps, ms, vs = [], [], []
        for p, g, m, v in zip(p_layer, g_layer, m_layer, v_layer):
            m = beta1 * m + (1 - beta1) * g
            v = beta2 * v + (1 - beta2) * (g * g)
            p = p - lr * (m / c1) / ((v / c2) ** 0.5 + eps)
            ps.append(p)
            ms.append(m)
            vs.append(v)
        new_params.append(tuple(ps))
        new_m.append(tuple(ms))
        new_v.append(tuple(vs))
    return new_params, {"t": t, "m": new_m, "v": new_v}


# -- backends ---------------------------------------------------------------------------
def array_module(backend):
    """numpy, or cupy (with a clean error when it is not installed)."""
    if backend == "numpy":
        return np
    if backend == "cupy":
        try:
            import cupy
        except ImportError:
            raise SystemExit("--backend cupy needs CuPy: pip install cupy-cuda12x "
                             "(or pip install -e '.[cupy]')") from None
        return cupy
    raise ValueError(f"backend must be 'numpy' or 'cupy', got {backend!r}")


def to_device(tree, xp):
    if xp is np:
        return tree
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_device(t, xp) for t in tree)
    return xp.asarray(tree)


def to_host(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_host(t) for t in tree)
    return tree.get() if hasattr(tree, "get") else tree


# -- training -----------------------------------------------------------------------------
class Progress:
    """A progress bar on stderr: tqdm's where it is installed (pip install ".[examples]"),
    else a one-line text bar redrawn with \\r."""

    def __init__(self, total, width=30, stream=sys.stderr, enabled=True, desc="Adam",
                 unit="step"):
        self.total, self.width, self.stream, self.enabled = total, width, stream, enabled
        self.desc, self.unit = desc, unit
        self.first = None           # when step 1 ended: the rate leaves out the transform
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        self.tqdm = (tqdm(total=total, file=stream, unit=unit, desc=desc)
                     if tqdm and enabled else None)

    def update(self, step, loss_value):
        if self.tqdm is not None:
            self.tqdm.set_postfix_str(f"loss {loss_value:.3e}", refresh=False)
            self.tqdm.update(step - self.tqdm.n)
            return
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.first is None:
            self.first, self.first_step = now, step
        done = int(self.width * step / self.total)
        rate = (now - self.first) / (step - self.first_step) if step > self.first_step else 0.0
        eta = rate * (self.total - step)
        bar = "#" * done + "." * (self.width - done)
        self.stream.write(f"\r{self.desc} [{bar}] {step}/{self.total}  loss {loss_value:.3e}  "
                          f"{rate:.3f} s/{self.unit}  eta {eta:5.0f} s ")
        self.stream.flush()

    def clear(self):
        """Blank the bar's line, so that a printed line does not run into it."""
        if self.tqdm is not None:
            self.tqdm.clear()
        elif self.enabled:
            self.stream.write("\r" + " " * (self.width + 80) + "\r")
            self.stream.flush()

    def close(self):
        if self.tqdm is not None:
            self.tqdm.close()
        elif self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def train(sizes=DEFAULT_SIZES, steps=1000, points=1000, edge_points=50, lr=5e-4, seed=0,
          mode=None, backend="numpy", dtype=np.float64, print_every=0, progress=True,
          params=None, jit=False):
    """Train the PINN; returns (params on the host, history of (step, loss)).

    The first step includes the transform time (s2sad writes the code of the
    loss gradient once); history holds the loss before each step's update.
    jit: each step under s2sad.jit (Numba compiles the gradient's elementwise regions,
    each once it has run as NumPy code as long as compiling it takes).
    """
    set_mode(mode)
    step_fn = s2sad.jit(loss_and_grad) if jit else loss_and_grad
    xp = array_module(backend)
    rng = np.random.default_rng(seed)
    if params is None:
        params = make_params(sizes, seed, dtype)
    params = to_device(params, xp)
    state = adam_init(params)
    history = []
    bar = Progress(steps, enabled=progress)
    for step in range(1, steps + 1):
        batch = to_device(sample_points(rng, points, edge_points, dtype), xp)
        value, grads = step_fn(params, *batch)
        value = float(value)
        history.append((step, value))
        if not math.isfinite(value):
            bar.close()
            raise FloatingPointError(f"the loss is {value} at step {step}")
        if print_every and (step % print_every == 0 or step == 1):
            _print_terms(bar, step, value, params, batch, xp)
        params, state = adam_step(params, grads, state, lr)
        bar.update(step, value)
    bar.close()
    return to_host(params), history


def _print_terms(bar, step, value, params, batch, xp):
    """Print the loss, its five terms at the same parameters and points (NumPy only: the
    plain call of loss_terms runs Python, not generated code), and the relative L2 error
    against Levy's series on the 101 x 51 grid (a forward pass: cheap)."""
    terms = [float(v) for v in loss_terms(params, *batch)] if xp is np else []
    detail = "  ".join(f"{n} {v:.2e}" for n, v in
                       zip(("pde", "w", "w_xx", "moment", "shear"), terms))
    bar.clear()
    print(f"step {step:5d}  loss {value:.4e}  {detail}  "
          f"error {evaluate(to_host(params))['rel_l2']:.3%}", flush=True)


# -- L-BFGS ----------------------------------------------------------------------------------
def flatten(params):
    """The parameter list [(W, b), ...] as one float64 vector: what SciPy optimises."""
    return np.concatenate([np.asarray(to_host(a), dtype=np.float64).ravel()
                           for layer in params for a in layer])


def unflatten(theta, like):
    """flatten's inverse: a list of tuples with the shapes and dtypes of `like`'s arrays."""
    out, k = [], 0
    for layer in like:
        parts = []
        for a in layer:
            parts.append(theta[k:k + a.size].reshape(a.shape).astype(a.dtype))
            k += a.size
        out.append(tuple(parts))
    if k != theta.size:
        raise ValueError(f"a vector of {theta.size} numbers for {k} parameters")
    return out


def make_objective(batch, like, xp=np):
    """fun(theta) -> (loss, its gradient as a vector) at the fixed points `batch`.

    This is what L-BFGS-B gets (jac=True): one call of loss_and_grad gives both.
    """
    def objective(theta):
        value, grads = loss_and_grad(to_device(unflatten(theta, like), xp), *batch)
        return float(value), flatten(grads)
    return objective


def require_scipy(stage, without):
    """Exit with what to install (or which option skips the stage) where SciPy is missing."""
    if importlib.util.find_spec("scipy") is None:
        raise SystemExit(f"the {stage} stage needs SciPy: pip install scipy (or pip install "
                         f"-e '.[examples]'), or {without} to leave it out")


def lbfgs(params, batch, iters=500, backend="numpy", print_every=0, progress=True,
          first_step=1, maxcor=50):
    """Minimise the loss at the fixed points `batch` by L-BFGS-B, from `params`.

    Returns (params on the host, history of (step, loss) after each iteration,
    SciPy's OptimizeResult). Steps are numbered from first_step, after Adam's.
    """
    require_scipy("L-BFGS", "--lbfgs 0")
    from scipy.optimize import minimize
    xp = array_module(backend)
    like = to_host(params)
    batch = to_device(batch, xp)
    objective = make_objective(batch, like, xp)
    history = []
    bar = Progress(iters, enabled=progress, desc="L-BFGS", unit="it")

    def callback(intermediate_result):
        step = len(history) + 1
        value = float(intermediate_result.fun)
        history.append((first_step + step - 1, value))
        if print_every and (first_step + step - 1) % print_every == 0:
            _print_terms(bar, first_step + step - 1, value,
                         unflatten(intermediate_result.x, like), batch, xp)
        bar.update(step, value)

    # ftol and gtol tiny: stop on the iteration count, not on a small relative change of a
    # loss that is already small; maxls: the line search may need more than 20 tries.
    result = minimize(objective, flatten(params), jac=True, method="L-BFGS-B",
                      callback=callback,
                      options={"maxiter": iters, "maxfun": 2 * iters + 100, "maxcor": maxcor,
                               "ftol": 1e-300, "gtol": 1e-300, "maxls": 50})
    bar.close()
    return unflatten(result.x, like), history, result


# -- Gauss-Newton (Levenberg-Marquardt) ----------------------------------------------------
# Each term of the loss is a mean of squares of per-point values: the PDE residual at the
# interior points, u and u_xx at the supports, the moment and the shear at the free edges.
# Stacked, and each scaled by sqrt(weight / count), they are one residual vector r with
# loss = r . r. Its Jacobian with respect to the weights has one row per point: the
# gradient of that point's value, which s2sad.vmap of s2sad.grad gives for every point at
# once (Taylor mode inside, for the fourth derivatives).
TERMS = (("pde", residual, "interior"), ("w", w, "supports"), ("w_xx", w_xx, "supports"),
         ("moment", moment, "free"), ("shear", shear, "free"))


def _one_point(term):
    """term's value at one point, as a number: what s2sad.grad differentiates."""
    def value(params, x, y):
        return np.sum(term(params, x, y))
    value.__name__ = f"{term.__name__}_at_a_point"
    return value


# the value and the gradient of each term at every point: params shared (in_axes None),
# x and y batched, one point of shape (1, 1) per example
POINT_GRADIENTS = {name: s2sad.vmap(s2sad.value_and_grad(_one_point(term)), in_axes=(None, 0, 0))
                   for name, term, _ in TERMS}


def _points(batch, where):
    xi, yi, xs, ys, xf, yf = batch
    return {"interior": (xi, yi), "supports": (xs, ys), "free": (xf, yf)}[where]


def residuals(params, batch):
    """The residual vector r (loss = r . r) at the points of `batch`."""
    out = []
    for (name, term, where), weight in zip(TERMS, WEIGHTS):
        x, y = _points(batch, where)
        out.append(math.sqrt(weight / len(x)) * np.ravel(to_host(term(params, x, y))))
    return np.concatenate(out)


def residuals_and_jacobian(params, batch):
    """(r, J): the residual vector and its Jacobian with respect to flatten(params), one
    row per point, from s2sad.vmap(s2sad.value_and_grad(...)) over the points."""
    rs, rows = [], []
    for (name, term, where), weight in zip(TERMS, WEIGHTS):
        x, y = _points(batch, where)
        values, grads = POINT_GRADIENTS[name](params, x[:, :, None], y[:, :, None])
        scale = math.sqrt(weight / len(x))
        rs.append(scale * np.asarray(to_host(values), dtype=np.float64))
        rows.append(scale * np.concatenate(
            [np.asarray(to_host(a), dtype=np.float64).reshape(len(x), -1)
             for layer in grads for a in layer], axis=1))
    return np.concatenate(rs), np.concatenate(rows)


def damped_step(J, r, damping):
    """delta solving (J^T J + damping I) delta = -J^T r, by Cholesky, through the smaller
    of J J^T (fewer residuals than weights) and J^T J. None where not positive definite."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve
    m, n = J.shape
    gram = J @ J.T if m < n else J.T @ J
    gram[np.diag_indices_from(gram)] += damping
    try:
        factor = cho_factor(gram, lower=True, check_finite=False)
    except LinAlgError:
        return None
    if m < n:
        return -(J.T @ cho_solve(factor, r, check_finite=False))
    return -cho_solve(factor, J.T @ r, check_finite=False)


def gauss_newton(params, batch, iters=500, backend="numpy", print_every=0, progress=True,
                 first_step=1, damping=1e-3):
    """Minimise the loss at the fixed points `batch` by Levenberg-Marquardt, from `params`.

    Each iteration takes r and J, then tries damped Gauss-Newton steps: a step that lowers
    the loss is taken and the damping divided by 3; one that does not doubles it.
    Returns (params on the host, history of (step, loss) after each iteration).
    """
    require_scipy("Gauss-Newton", "--gn 0")
    xp = array_module(backend)
    like = to_host(params)
    batch = to_device(batch, xp)
    theta, history = flatten(params), []
    bar = Progress(iters, enabled=progress, desc="Gauss-Newton", unit="it")
    for it in range(1, iters + 1):
        r, J = residuals_and_jacobian(to_device(unflatten(theta, like), xp), batch)
        value = float(r @ r)
        while damping < 1e12:
            delta = damped_step(J, r, damping)
            trial = None if delta is None else theta + delta
            new = math.inf if trial is None else float(np.sum(
                residuals(to_device(unflatten(trial, like), xp), batch) ** 2))
            if new < value:
                theta, value, damping = trial, new, max(damping / 3, 1e-15)
                break
            damping *= 2
        step = first_step + it - 1
        history.append((step, value))
        if print_every and step % print_every == 0:
            _print_terms(bar, step, value, unflatten(theta, like), batch, xp)
        bar.update(it, value)
        if damping >= 1e12:       # no step lowers the loss: a minimum, to rounding
            break
    bar.close()
    return unflatten(theta, like), history


# -- evaluation ------------------------------------------------------------------------------
def evaluate(params, nx=101, ny=51, terms=50):
    """The trained field against Levy's series on an nx-by-ny grid (in metres).

    Returns a dict: the grids, both fields, the relative L2 error, the
    largest deflections and their relative error, and the centre deflections.
    """
    xg = np.linspace(X_MIN, X_MAX, nx)
    yg = np.linspace(Y_MIN, Y_MAX, ny)
    X, Y = np.meshgrid(xg, yg)
    dtype = params[0][0].dtype
    pinn = W_SCALE * w(params, X.reshape(-1, 1).astype(dtype),
                       Y.reshape(-1, 1).astype(dtype)).reshape(X.shape).astype(float)
    exact = levy_deflection(X, Y, terms)
    centre = W_SCALE * float(w(params, np.zeros((1, 1), dtype), np.zeros((1, 1), dtype))[0, 0])
    return {
        "x": X, "y": Y, "pinn": pinn, "exact": exact,
        "rel_l2": float(np.linalg.norm(pinn - exact) / np.linalg.norm(exact)),
        "max_pinn": float(pinn.max()), "max_exact": float(exact.max()),
        "max_rel_err": float(abs(pinn.max() - exact.max()) / exact.max()),
        "centre_pinn": centre, "centre_exact": float(levy_deflection(0.0, 0.0, terms)),
    }


def save_png(result, path, stages=()):
    """PINN field, Levy's field, their difference and the loss curve of each stage, given
    as (name, history) pairs (needs matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: skipped {path} "
              "(pip install matplotlib, or pip install -e '.[examples]')")
        return False
    mm = 1e3
    fig, axes = plt.subplots(2, 2, figsize=(13, 7), constrained_layout=True)
    panels = [("PINN deflection w (mm)", result["pinn"] * mm, "viridis"),
              ("Levy series w (mm)", result["exact"] * mm, "viridis"),
              ("PINN - Levy (mm)", (result["pinn"] - result["exact"]) * mm, "RdBu_r")]
    top = float(max(result["pinn"].max(), result["exact"].max())) * mm
    bottom = float(min(result["pinn"].min(), result["exact"].min())) * mm
    for ax, (title, field, cmap) in zip(axes.flat, panels):
        if cmap == "RdBu_r":                     # the difference: centred on zero
            lim = float(np.abs(field).max()) or 1.0
            vmin, vmax = -lim, lim
        else:                                    # both fields on one colour scale
            vmin, vmax = bottom, top
        im = ax.pcolormesh(result["x"], result["y"], field, cmap=cmap, vmin=vmin, vmax=vmax,
                           shading="auto")
        ax.set_title(title)
        ax.set_aspect("equal")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        fig.colorbar(im, ax=ax, shrink=0.8)
    _plot_losses(axes.flat[3], stages)
    fig.suptitle(f"Kirchhoff plate: relative L2 error {result['rel_l2']:.3%}")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"saved {path}")
    return True


STAGE_STYLE = {"Adam": ("Adam (random batches)", "tab:blue"),
               "L-BFGS": ("L-BFGS (fixed points)", "tab:red"),
               "Gauss-Newton": ("Gauss-Newton (fixed points)", "tab:green")}


def _plot_losses(ax, stages):
    """The loss against the step, stage after stage: Adam's (a new random batch each
    step), then L-BFGS's and Gauss-Newton's iterations (fixed points)."""
    for name, history in stages:
        if history:
            steps, values = zip(*history)
            label, colour = STAGE_STYLE[name]
            ax.semilogy(steps, values, color=colour, lw=0.8, label=label)
    ax.set_title("training loss")
    ax.set_xlabel("step (Adam), then iteration (L-BFGS, Gauss-Newton)")
    ax.set_ylabel("loss")
    ax.grid(True, which="both", alpha=0.3)
    if any(history for _, history in stages):
        ax.legend()


def report(result):
    """The final table of errors against Levy's series (deflections in mm)."""
    mm = 1e3

    def row(name, pinn, levy):
        return (f"{name:<22} {pinn * mm:>10.3f} {levy * mm:>10.3f} "
                f"{abs(pinn - levy) / abs(levy):>10.3%}")
    lines = [f"{'against Levy':<22} {'PINN (mm)':>10} {'Levy (mm)':>10} {'error':>10}",
             f"{'relative L2 error':<22} {'':>10} {'':>10} {result['rel_l2']:>10.3%}"
             "   (101 x 51 grid)",
             row("max deflection", result["max_pinn"], result["max_exact"]),
             row("centre deflection", result["centre_pinn"], result["centre_exact"])]
    return "\n".join(lines)


# -- command line ---------------------------------------------------------------------------
# The default run: about 2 minutes on a 2-core CPU (docs/plate.md: what it reaches).
DEFAULTS = {"steps": 400, "points": 500, "edge_points": 50, "lr": 1e-3, "lbfgs": 0,
            "lbfgs_points": 500, "lbfgs_edge_points": 100, "gn": 300, "gn_points": 1000,
            "gn_edge_points": 200, "sizes": DEFAULT_SIZES}
# The accurate configuration: <= 0.02% relative L2 against Levy's series (docs/plate.md).
ACCURATE = "--steps 400 --gn 1500 --gn-points 1000 --gn-edge-points 200 --sizes 2,20,20,20,1"


def parse_args(argv=None):
    d = DEFAULTS
    p = argparse.ArgumentParser(
        description="A Kirchhoff plate (simply supported at x = +-1, free at y = +-0.5)\n"
                    "solved by a PINN in NumPy, every derivative taken by s2sad: Adam on\n"
                    "random batches of points, then Gauss-Newton (Levenberg-Marquardt) on\n"
                    "fixed points, its Jacobian from s2sad.vmap of s2sad.grad.",
        epilog="The default run took 1.6 minutes on a 2-core CPU (two runs side by side) and "
               "reached\n0.015%, 0.032% and 0.037% relative L2 error against Levy's series "
               "with seeds 0, 1\nand 2. The accurate configuration (8 to 9 minutes) reached "
               "0.008% with each of\nthem (docs/plate.md).\n"
               f"accurate: {ACCURATE}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=d["steps"],
                   help="Adam steps (default %(default)s)")
    p.add_argument("--points", type=int, default=d["points"],
                   help="random interior points per Adam step (default %(default)s)")
    p.add_argument("--edge-points", type=int, default=d["edge_points"],
                   help="random points per Adam step on each pair of edges (default %(default)s)")
    p.add_argument("--lr", type=float, default=d["lr"],
                   help="Adam learning rate (default %(default)g)")
    p.add_argument("--lbfgs", type=int, default=d["lbfgs"],
                   help="L-BFGS iterations after Adam, 0 for none (default %(default)s)")
    p.add_argument("--lbfgs-points", type=int, default=d["lbfgs_points"],
                   help="fixed interior points of the L-BFGS stage (default %(default)s)")
    p.add_argument("--lbfgs-edge-points", type=int, default=d["lbfgs_edge_points"],
                   help="fixed points of the L-BFGS stage on each pair of edges "
                        "(default %(default)s)")
    p.add_argument("--gn", type=int, default=d["gn"],
                   help="Gauss-Newton (Levenberg-Marquardt) iterations after Adam (and "
                        "L-BFGS), 0 for none (default %(default)s)")
    p.add_argument("--gn-points", type=int, default=d["gn_points"],
                   help="fixed interior points of the Gauss-Newton stage (default %(default)s)")
    p.add_argument("--gn-edge-points", type=int, default=d["gn_edge_points"],
                   help="fixed points of the Gauss-Newton stage on each pair of edges "
                        "(default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights and the points")
    p.add_argument("--sizes", default=",".join(map(str, d["sizes"])),
                   help="layer sizes, input 2 and output 1 (default %(default)s)")
    p.add_argument("--mode", choices=["taylor", "forward", "reverse"], default=default_mode(),
                   help="how the per-point derivatives are taken: Taylor mode, nested "
                        "s2sad.derivative (forward) or nested s2sad.grad (reverse); "
                        "default %(default)s")
    p.add_argument("--backend", choices=["numpy", "cupy"], default="numpy",
                   help="array library to train with (default numpy)")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--jit", action="store_true",
                   help="run the Adam steps under s2sad.jit: Numba compiles the loss "
                        "gradient's elementwise regions (needs numba; each once the "
                        "steps have spent as long in it as compiling it takes, about "
                        "half a second; cached on disk for later runs)")
    p.add_argument("--png", default="plate.png",
                   help="where to save the picture (needs matplotlib); '' for none")
    p.add_argument("--print-every", type=int, default=100,
                   help="print the loss and its terms every N steps or iterations "
                        "(0: never; default %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--terms", type=int, default=50, help="terms of Levy's series (default 50)")
    p.add_argument("--weights", default=",".join(f"{w:g}" for w in WEIGHTS),
                   help="the loss weights of the PDE residual, u and u_xx at the supports, "
                        "the moment and the shear at the free edges (default 1,1,1,1,1)")
    p.add_argument("--show-source", action="store_true",
                   help="print the generated code of w_xx and its line counts, then exit")
    args = p.parse_args(argv)
    try:
        args.sizes = tuple(int(s) for s in args.sizes.split(","))
    except ValueError:
        p.error(f"--sizes must be comma-separated integers, got {args.sizes!r}")
    if len(args.sizes) < 2 or args.sizes[0] != 2 or args.sizes[-1] != 1:
        p.error("--sizes must start with 2 (x, y) and end with 1 (w)")
    try:
        args.weights = tuple(float(s) for s in args.weights.split(","))
    except ValueError:
        p.error(f"--weights must be five comma-separated numbers, got {args.weights!r}")
    if len(args.weights) != 5:
        p.error(f"--weights must be five numbers, got {len(args.weights)}")
    if args.jit and args.backend != "numpy":
        p.error("--jit compiles NumPy code with Numba: use it with --backend numpy")
    if args.jit and not s2sad.compiled.available():
        p.error("--jit needs Numba: pip install 's2sad[numba]'")
    return args


def show_source(mode):
    """Print the generated code of w_xx, and the size of each order's code."""
    set_mode(mode)
    params = make_params(DEFAULT_SIZES)
    x = np.zeros((3, 1))
    names = ("w_x", "w_xx", "w_xxx", "w_xxxx")
    for name in names:
        globals()[name](params, x, x)            # the first call writes the code
    print(s2sad.source(w_xx))
    for name in names:
        lines = len(s2sad.source(globals()[name]).splitlines())
        print(f"{name}: {lines} lines of generated code ({mode} mode)")


def main(argv=None):
    args = parse_args(argv)
    if args.show_source:
        show_source(args.mode)
        return None
    dtype = np.dtype(args.dtype).type
    global WEIGHTS
    WEIGHTS = args.weights          # the loss reads it as a global: s2sad sees the new value
    print(f"Kirchhoff plate: D = {D:.1f} N m, q / D = {W_SCALE:.5f} 1/m^3; network "
          f"{'-'.join(map(str, args.sizes))}, {args.mode} mode, {args.backend}, {args.dtype}")
    print(f"{args.steps} Adam steps (lr {args.lr:g}), {args.points} interior points and "
          f"{args.edge_points} on each pair of edges per step, loss weights "
          f"{','.join(f'{w:g}' for w in WEIGHTS)}"
          + ("; the steps under s2sad.jit (Numba)" if args.jit else ""))
    if args.lbfgs:
        print(f"then {args.lbfgs} L-BFGS iterations at {args.lbfgs_points} fixed interior "
              f"points and {args.lbfgs_edge_points} on each pair of edges")
    if args.gn:
        print(f"then {args.gn} Gauss-Newton iterations at {args.gn_points} fixed interior "
              f"points and {args.gn_edge_points} on each pair of edges")
    t0 = time.perf_counter()
    params, adam_history = train(args.sizes, args.steps, args.points, args.edge_points, args.lr,
                                 args.seed, args.mode, args.backend, dtype, args.print_every,
                                 progress=not args.no_progress, jit=args.jit)
    t_adam = time.perf_counter() - t0
    print(f"Adam: {args.steps} steps in {t_adam:.1f} s"
          + (f"; last batch's loss {adam_history[-1][1]:.4e}" if adam_history else ""))
    lbfgs_history = []
    if args.lbfgs:
        t1 = time.perf_counter()
        points = sample_points(np.random.default_rng(args.seed + 1), args.lbfgs_points,
                               args.lbfgs_edge_points, dtype)
        params, lbfgs_history, res = lbfgs(params, points, args.lbfgs, args.backend,
                                           args.print_every, not args.no_progress,
                                           first_step=args.steps + 1)
        print(f"L-BFGS: {res.nit} iterations ({res.nfev} loss and gradient evaluations) in "
              f"{time.perf_counter() - t1:.1f} s; loss {res.fun:.4e}; SciPy: {res.message}")
    gn_history = []
    if args.gn:
        t1 = time.perf_counter()
        points = sample_points(np.random.default_rng(args.seed + 2), args.gn_points,
                               args.gn_edge_points, dtype)
        params, gn_history = gauss_newton(params, points, args.gn, args.backend,
                                          args.print_every, not args.no_progress,
                                          first_step=args.steps + len(lbfgs_history) + 1)
        print(f"Gauss-Newton: {len(gn_history)} iterations in {time.perf_counter() - t1:.1f} s; "
              f"loss {gn_history[-1][1]:.4e}")
    elapsed = time.perf_counter() - t0
    result = evaluate(params, terms=args.terms)
    print(f"trained in {elapsed:.1f} s\n")
    print(report(result))
    result.update(adam_history=adam_history, lbfgs_history=lbfgs_history,
                  gn_history=gn_history, seconds=elapsed)
    if args.png:
        save_png(result, args.png, [("Adam", adam_history), ("L-BFGS", lbfgs_history),
                                    ("Gauss-Newton", gn_history)])
    return result

if __name__ == "__main__":
    main()
