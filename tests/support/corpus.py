"""Small programs a user might differentiate, each guarding one thing.

Every function's docstring says what it guards.  ``CORPUS`` lists
``(function, args)`` pairs; tests/programs/test_programs.py checks each one with
:func:`s2sad.check.check_grads` at order 1 and at order 2.

Arguments are built from a fixed seed so that a failure is reproducible;
values that go into ``log``, ``sqrt`` or ``/`` are kept away from zero.
"""

import math

import numpy as np

_rng = np.random.default_rng(20240611)


def _pos(*shape):
    """Positive values in [0.5, 2.0): safe for log, sqrt and division."""
    return _rng.uniform(0.5, 2.0, size=shape)


def _any(*shape):
    return _rng.uniform(-1.5, 1.5, size=shape)


# ---------------------------------------------------------------------------
# module-level state that functions read
# ---------------------------------------------------------------------------

W = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]])   # read by uses_global_array
D = 2.0                                                   # read by uses_module_constant
EPS = 1e-6                                                # read by rmsnorm


# ---------------------------------------------------------------------------
# helpers called (and inlined) by the functions below
# ---------------------------------------------------------------------------

def scale_shift(a, scale=2.0, *, shift=0.5):
    """A helper with a positional default and a keyword-only default."""
    return a * scale + shift


def softplus(a):
    """A helper that calls another module-level function (two levels of inlining)."""
    return np.log(1.0 + np.exp(a))


def double_softplus(a):
    """Calls softplus twice."""
    return softplus(a) + softplus(2.0 * a)


def squared(x):
    """A helper whose parameter has the same name as the caller's variable."""
    y = x * x
    return y


# ---------------------------------------------------------------------------
# variables and statements
# ---------------------------------------------------------------------------

def same_var_twice(x):
    """The same variable twice: x * x (both adjoint contributions must add up)."""
    return x * x


def same_var_three_times(x):
    """The same variable three times: x * x * x."""
    return x * x * x


def same_var_in_many_places(x, y):
    """One variable read by several statements: the adjoints fan in."""
    a = x * y
    b = np.sin(x)
    c = a + b * x
    return c * x + y


def reassign(x):
    """Reassignment of a name: x = x * 2; x = np.sin(x)."""
    x = x * 2
    x = np.sin(x)
    return x * x


def reassign_from_other(x, y):
    """A name reassigned from another variable and then from itself."""
    z = x
    z = z * y
    z = z + x
    return z * z


def alias_without_update(x):
    """y = x with no in-place update: both names read the same value."""
    y = x
    return x * y + y


def augmented(x):
    """Augmented assignment: z = x * 1.0; z += x; z *= x."""
    z = x * 1.0
    z += x
    z *= x
    return z


def augmented_all_ops(x, y):
    """Augmented assignment with -=, /= and **=."""
    z = x + 0.5
    z -= y
    z /= y
    z **= 2
    return z


def augmented_parameter(x, y):
    """x += y on a parameter nothing else refers to."""
    x += y
    return x * x


def tuple_unpacking(x, y):
    """a, b = ... unpacks a tuple of expressions."""
    a, b = x * 2.0, np.sin(y)
    return a * b


def annotated(x):
    """An annotated assignment: y: float = ..."""
    y: float = x * 3.0
    return y * x


def with_docstring(x):
    """A docstring and nothing else but a return (the docstring must be skipped)."""
    return np.exp(x)


def adjoint_like_names(x):
    """Variables named like the generated code's names: dx, dout, out, xp."""
    dx = x * 2.0
    out = np.sin(dx)
    dout = out * x
    xp = dout + dx
    return xp * out


def unused_intermediate(x, y):
    """A computed value that is never used."""
    junk = np.exp(y) * 3.0
    return x * y


def constant_output_part(x):
    """Part of the result does not depend on the input."""
    c = np.ones(3) * 2.0
    return x * x + c


# ---------------------------------------------------------------------------
# constants and operators
# ---------------------------------------------------------------------------

def numeric_constants(x):
    """Integer and float literals: 3 * x ** 2 + 0.5 * x - 7."""
    return 3 * x ** 2 + 0.5 * x - 7


def unary_minus(x, y):
    """Unary minus, alone and on expressions."""
    return -x * -y + (-(x - y)) - (-x)


def unary_plus(x):
    """Unary plus."""
    return +x * x


def scalar_array_ops(a, x):
    """Every operator between a Python float a and an array x."""
    return a + x, a - x, a * x, a / x, x ** a, a ** x, x / a, x - a


def array_array_ops(x, y):
    """+ - * / ** between two arrays of one shape."""
    return (x + y) * (x - y) / y + x ** y


def python_float_and_array(x):
    """Python float constants mixed into array expressions."""
    return 2.5 * x + x / 3.0 - 1.5 + 0.25 / x


def float_args_only(a, b):
    """Only Python floats in, a Python float out."""
    return a * b - a / b + b ** 2.0


def matmul_ops(A, x, B):
    """@ between matrix and vector, vector and matrix, matrix and matrix."""
    return A @ x, x @ B, A @ B


def matmul_chain(A, x):
    """(x @ A.T) @ A: a transpose in a product."""
    return (x @ A.T) @ A


def comparisons_as_masks(x):
    """A comparison used as a mask: x * (x > 0) (the mask has no derivative)."""
    return x * (x > 0.1) + 0.5 * x * (x <= 0.1)


def pi_constant(x):
    """np.pi and math.pi read as constants."""
    return np.sin(np.pi * x) + math.pi * x


def math_module_calls(x):
    """math.sin / math.exp on a Python float mean np.sin / np.exp."""
    return math.sin(x) * math.exp(x) + math.sqrt(x)


def builtin_pow(x):
    """The builtin pow(x, 3)."""
    return pow(x, 3) + pow(2.0, x)


def int_argument(x, n):
    """An int argument used as an exponent (it gets no gradient)."""
    return x ** n


def bool_argument(x, flag):
    """A bool argument used in arithmetic (it gets no gradient)."""
    return x * flag + x


# ---------------------------------------------------------------------------
# broadcasting and shapes
# ---------------------------------------------------------------------------

def broadcast_row(a, b):
    """A (3, 2) array plus a (2,) array: the (2,) gradient sums over rows."""
    return a + b


def broadcast_outer(a, b):
    """(3, 1) * (1, 4): both gradients sum over the broadcast axis."""
    return a * b


def broadcast_scalar_array(s, x):
    """A 0-d array times a (3,) array."""
    return s * x + s


def broadcast_float_matrix(a, x):
    """A Python float times a (3, 2) array: the float's gradient is a sum."""
    return np.sin(a * x)


def reshape_and_transpose(x):
    """x.reshape(2, 3), .T and np.reshape."""
    y = x.reshape(2, 3)
    z = y.T * 2.0
    return np.reshape(z, (6,)) * np.reshape(x, (6,))


def broadcast_to_call(x):
    """np.broadcast_to of a (3,) array to (2, 3)."""
    return np.broadcast_to(x, (2, 3)) * np.arange(6.0).reshape(2, 3)


def indexing(x):
    """x[0], x[1:3], x[:, None] and negative indices."""
    return x[0] * x[1:3] + x[-1] + x[:, None][2]


def fancy_indexing_repeated(x):
    """x[[0, 0, 2]]: a repeated index must add its gradients."""
    idx = np.array([0, 0, 2])
    return x[idx] * x[1]


def matrix_indexing(x):
    """x[1], x[:, 0], x[1:, ::-1] on a (3, 2) array."""
    return x[1] * x[:, 0][:2, None] + x[1:, ::-1]


def where_leaky_relu(x):
    """np.where(x > 0, x, 0.1 * x): a value branch written the supported way."""
    return np.where(x > 0, x, 0.1 * x)


def where_scalar_branch(x):
    """np.where with a Python float in one branch."""
    return np.where(x > 0.2, np.sin(x), 0.5)


def astype_float(x):
    """x.astype(np.float64) passes the gradient through."""
    return x.astype(np.float64) * x


# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------

def sum_all(x):
    """np.sum over everything and the method x.sum()."""
    return np.sum(x ** 2) + x.sum()


def sum_axis(x):
    """np.sum with axis=0 and axis=1, keepdims on and off."""
    return np.sum(x, axis=0) * np.sum(x, axis=1, keepdims=True)


def sum_negative_axis(x):
    """x.sum(axis=-1) on a 3-d array."""
    return np.sin(x.sum(axis=-1))


def mean_axis(x):
    """np.mean over an axis and over everything."""
    return np.mean(x, axis=1) - np.mean(x)


def sum_tuple_axis(x):
    """np.sum over a tuple of axes."""
    return np.sum(x * x, axis=(0, 2))


# ---------------------------------------------------------------------------
# calls into user code
# ---------------------------------------------------------------------------

def calls_helper_defaults(x):
    """A helper called with its defaults, a positional override, and keywords."""
    return scale_shift(x) + scale_shift(x, 3.0) + scale_shift(x, scale=x, shift=x * x)


def calls_nested_helpers(x):
    """A helper that calls another helper."""
    return double_softplus(x) * x


def calls_helper_name_clash(x):
    """The helper's local names and parameters clash with the caller's."""
    y = x + 1.0
    return squared(y) + squared(x) * y


def uses_global_array(x):
    """A module-level array W read by the function."""
    return np.sum(np.tanh(W @ x))


def uses_module_constant(x):
    """A module-level float D."""
    return x ** D + D * x


def keyword_only_param(x, *, y=3.0):
    """A keyword-only parameter with a default, left at its default."""
    return x * y


def positional_default(x, s=0.5):
    """A positional parameter with a default, left at its default."""
    return np.sin(s * x)


def returns_tuple(x, y):
    """A tuple result: each element gets its own sensitivity."""
    return x * y, np.sin(x) + y


# ---------------------------------------------------------------------------
# the seed formulas
# ---------------------------------------------------------------------------

def seed_q(a, b):
    """Q = 3a^3 - b^2."""
    return 3 * a ** 3 - b ** 2


def seed_cos_sin(x):
    """cos(sin(x))."""
    return np.cos(np.sin(x))


def seed_log_xy(x, y):
    """log(x * y)."""
    return np.log(x * y)


def seed_sigmoid(x):
    """The sigmoid 1 / (1 + exp(-x))."""
    return 1 / (1 + np.exp(-x))


def seed_tanh_chain(x):
    """tanh(exp(x) * sqrt(x))."""
    return np.tanh(np.exp(x) * np.sqrt(x))


def seed_cost(x, y):
    """The docstring example: x * (x + y)."""
    return x * (x + y)


def seed_log_plus(x1, x2):
    """The Baydin et al. example: log(x1) + x1 * x2 - sin(x2)."""
    return np.log(x1) + x1 * x2 - np.sin(x2)


def rmsnorm(x, w):
    """RMSNorm: x / sqrt(mean(x**2) + eps) * w."""
    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + EPS) * w


def log_softmax(x):
    """log_softmax built from exp, max and log: x - max - log(sum(exp(x - max)))."""
    m = np.max(x, axis=-1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))


def logsumexp(x, axis=-1):
    """logsumexp written by the user, with axis and keepdims=True (shape kept)."""
    m = np.max(x, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m


def logsumexp_reduced(x, axis=-1):
    """logsumexp with keepdims=False in the sum and the max added back reduced."""
    m = np.max(x, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=axis)) + np.max(x, axis=axis)


def logsumexp_axis0(x):
    """Calls the user's logsumexp with axis=0 (a keyword into an inlined helper)."""
    return logsumexp(x, axis=0) + logsumexp_reduced(x, 0)


def minmax_spread(x):
    """np.max - np.min over an axis (ties are avoided by the data)."""
    return np.max(x, axis=0) - np.min(x, axis=0) + np.max(x)


# ---------------------------------------------------------------------------
# more shapes of programs: returns, attributes, multiple targets
# ---------------------------------------------------------------------------

def identity(x):
    """The identity: the gradient is ones."""
    return x


def returns_second_argument(x, y):
    """Only the second argument reaches the result: x gets zeros."""
    return y


def returns_input_and_more(x):
    """A tuple result that contains the input itself."""
    return x, x * 2.0


def same_value_twice_in_tuple(x):
    """One value returned twice: both cotangents add up."""
    y = np.sin(x)
    return y, y


def tuple_literal_then_index(x, y):
    """A tuple built locally and read back by index."""
    t = (x, y * 2.0)
    return t[0] * t[1]


def chained_assignment(x):
    """a = b = expr: two names for one value."""
    a = b = x * 2.0
    return a * b


def shape_attributes(x):
    """x.shape[0], len(x), x.size and x.ndim are constants of the computation."""
    return np.sum(x) / x.shape[0] + np.sum(x * x) / len(x) + x.size * x + x.ndim * x


def gram_matrix(x):
    """x.T @ x: the same array on both sides of @."""
    return x.T @ x


def numpy_scalar_constants(x):
    """np.float32 / np.float64 constants times an array."""
    return np.float32(2.0) * x + np.float64(0.5) * x


def negative_and_fractional_powers(x):
    """x ** -1.5 + x ** 0.5 + 2 ** x."""
    return x ** -1.5 + x ** 0.5 + 2 ** x


def zeros_like_constant(x):
    """np.zeros_like(x) contributes no gradient."""
    return x * 2.0 + np.zeros_like(x)


def int_global(x):
    """A module-level int read as a constant."""
    return x * N_INT


N_INT = 3


# ---------------------------------------------------------------------------
# small models
# ---------------------------------------------------------------------------

def mlp_loss(x, W1, b1, W2, b2):
    """A two-layer MLP with tanh and a squared loss."""
    h = np.tanh(x @ W1 + b1)
    y = h @ W2 + b2
    return np.sum(y ** 2) / 2.0


def logistic_loss(w, X, t):
    """Logistic regression: sum(log1p(exp(-t * (X @ w))))."""
    return np.sum(np.log1p(np.exp(-t * (X @ w))))


def layer_norm(x, g, b):
    """Layer norm with np.mean and np.var over the last axis."""
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def softmax_cross_entropy(x, t):
    """Cross entropy on top of the user's log_softmax (an inlined helper)."""
    return -np.sum(t * log_softmax(x))


def attention(q, k, v):
    """Scaled dot-product attention with a max-shifted softmax (method .max)."""
    s = q @ k.T / np.sqrt(q.shape[-1])
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v


def relu_and_abs(x):
    """np.maximum(x, 0) and np.abs, away from their kinks."""
    return np.maximum(x, 0.0) * 2.0 + np.abs(x)


def stack_and_concatenate(x, y):
    """np.stack and np.concatenate of expressions."""
    s = np.stack([x, y * y])
    c = np.concatenate([x, np.sin(y)])
    return np.sum(s, axis=0) * np.sum(c)


def clip_inside(x):
    """np.clip with values strictly inside and outside the bounds."""
    return np.clip(x, -1.0, 1.0) * x


def norm_of_difference(x, y):
    """np.linalg.norm of a difference."""
    return np.linalg.norm(x - y) * np.sum(x)


CORPUS = [
    (same_var_twice, (_any(4),)),
    (same_var_three_times, (_any(3),)),
    (same_var_in_many_places, (_any(3), _any(3))),
    (reassign, (_any(3),)),
    (reassign_from_other, (_any(3), _any(3))),
    (alias_without_update, (_any(3),)),
    (augmented, (_any(3),)),
    (augmented_all_ops, (_any(3), _pos(3))),
    (augmented_parameter, (_any(3), _any(3))),
    (tuple_unpacking, (_any(3), _any(3))),
    (annotated, (_any(3),)),
    (with_docstring, (_any(2, 2),)),
    (adjoint_like_names, (_any(3),)),
    (unused_intermediate, (_any(3), _any(3))),
    (constant_output_part, (_any(3),)),
    (numeric_constants, (_any(3),)),
    (unary_minus, (_any(3), _any(3))),
    (unary_plus, (_any(3),)),
    (scalar_array_ops, (1.3, _pos(3))),
    (array_array_ops, (_pos(3), _pos(3))),
    (python_float_and_array, (_pos(2, 3),)),
    (float_args_only, (1.3, 0.7)),
    (matmul_ops, (_any(3, 2), _any(2), _any(2, 4))),
    (matmul_chain, (_any(3, 2), _any(4, 2))),
    (comparisons_as_masks, (np.array([-1.0, -0.4, 0.5, 1.2]),)),
    (pi_constant, (_any(3),)),
    (math_module_calls, (0.7,)),
    (builtin_pow, (_pos(3),)),
    (int_argument, (_pos(3), 3)),
    (bool_argument, (_any(3), True)),
    (broadcast_row, (_any(3, 2), _any(2))),
    (broadcast_outer, (_any(3, 1), _any(1, 4))),
    (broadcast_scalar_array, (np.array(0.7), _any(3))),
    (broadcast_float_matrix, (0.8, _any(3, 2))),
    (reshape_and_transpose, (_any(6),)),
    (broadcast_to_call, (_any(3),)),
    (indexing, (_any(4),)),
    (fancy_indexing_repeated, (_any(3),)),
    (matrix_indexing, (_any(3, 2),)),
    (where_leaky_relu, (np.array([-1.0, -0.3, 0.4, 1.1]),)),
    (where_scalar_branch, (np.array([-1.0, -0.3, 0.4, 1.1]),)),
    (astype_float, (_any(3),)),
    (sum_all, (_any(3, 2),)),
    (sum_axis, (_any(3, 2),)),
    (sum_negative_axis, (_any(2, 3, 4),)),
    (mean_axis, (_any(3, 4),)),
    (sum_tuple_axis, (_any(2, 3, 4),)),
    (calls_helper_defaults, (_any(3),)),
    (calls_nested_helpers, (_any(3),)),
    (calls_helper_name_clash, (_any(3),)),
    (uses_global_array, (_any(2),)),
    (uses_module_constant, (_pos(3),)),
    (keyword_only_param, (_any(3),)),
    (positional_default, (_any(3),)),
    (returns_tuple, (_any(3), _any(3))),
    (seed_q, (2.0, 6.0)),
    (seed_cos_sin, (_any(5),)),
    (seed_log_xy, (_pos(3), _pos(3))),
    (seed_sigmoid, (_any(5),)),
    (seed_tanh_chain, (_pos(3),)),
    (seed_cost, (2.0, 1.0)),
    (seed_log_plus, (2.0, 5.0)),
    (rmsnorm, (_any(2, 4), _any(4))),
    (log_softmax, (_any(2, 5),)),
    (logsumexp, (_any(3, 4),)),
    (logsumexp_reduced, (_any(3, 4),)),
    (logsumexp_axis0, (_any(3, 4),)),
    (minmax_spread, (_any(4, 3),)),
    (identity, (_any(3),)),
    (returns_second_argument, (_any(3), _any(3))),
    (returns_input_and_more, (_any(3),)),
    (same_value_twice_in_tuple, (_any(3),)),
    (tuple_literal_then_index, (_any(3), _any(3))),
    (chained_assignment, (_any(3),)),
    (shape_attributes, (_any(4),)),
    (gram_matrix, (_any(3, 2),)),
    (numpy_scalar_constants, (_any(3),)),
    (negative_and_fractional_powers, (_pos(3),)),
    (zeros_like_constant, (_any(3),)),
    (int_global, (_any(3),)),
    (mlp_loss, (_any(4, 3), _any(3, 5), _any(5), _any(5, 2), _any(2))),
    (logistic_loss, (_any(3), _any(5, 3), np.array([1.0, -1.0, 1.0, 1.0, -1.0]))),
    (layer_norm, (_any(2, 5), _any(5), _any(5))),
    (softmax_cross_entropy, (_any(3, 4), np.eye(4)[[0, 2, 3]])),
    (attention, (_any(2, 3), _any(4, 3), _any(4, 2))),
    (relu_and_abs, (np.array([-1.2, -0.3, 0.4, 1.5]),)),
    (stack_and_concatenate, (_any(3), _any(3))),
    (clip_inside, (np.array([-1.7, -0.5, 0.3, 1.4]),)),
    (norm_of_difference, (_any(4), _any(4))),
]
