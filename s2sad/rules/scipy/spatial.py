"""scipy.spatial.distance's pdist, cdist and squareform, written as the NumPy code s2sad
transforms (registry.implement): calls of them run the functions below, so their
derivatives at every order and in every mode are those of this code.

Metrics, by name as SciPy spells them, or a Python function of two 1-d arrays (called for
each pair, in a loop s2sad differentiates):

==============  ====================================  ===================================
metric          distance of u and v                   at a tie
==============  ====================================  ===================================
euclidean       ``np.linalg.norm(u - v)``             0 where u = v (norm's convention)
sqeuclidean     ``np.sum((u - v) ** 2)``
cityblock       ``np.sum(np.abs(u - v))``             abs's: 0 where an entry is equal
chebyshev       ``np.max(np.abs(u - v))``             max's: shared among ties
minkowski       ``np.linalg.norm(u - v, ord=p)``      norm's
seuclidean      ``sqrt(sum((u - v) ** 2 / V))``       0 where u = v
cosine          ``1 - u.v / (|u| |v|)``
correlation     cosine of u and v less their means
==============  ====================================  ===================================

A distance matrix's gradient at a zero distance (``cdist(X, X)``'s diagonal) is the
norm's convention, 0, where the derivative of a norm does not exist; a smooth function of
it (``np.exp(-cdist(X, X) ** 2)``) has the right derivative there.  Another metric name,
SciPy's ``w=``, ``V=`` of mahalanobis (``VI=``) and ``out=`` are refused by name where a
derivative would flow.  squareform's ``checks``
compare as SciPy's do: a matrix that is not symmetric with a zero diagonal is SciPy's
ValueError.
"""

import numpy as np

from ...errors import MissingRuleError
from ...registry import implement, primitive
from .stats import check_argument

try:
    from scipy.spatial import distance as sd
except ImportError:          # pragma: no cover - SciPy is optional
    sd = None

NAMED = ("euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski", "seuclidean",
         "cosine", "correlation")


def _other_metric(d):
    """d, where pdist or cdist was given a metric or an option s2sad does not differentiate:
    a primitive without a rule, refused by name where a derivative would flow."""
    return d


def _refusal(src):
    return MissingRuleError(
        "scipy.spatial.distance's pdist or cdist with a metric other than "
        f"{', '.join(NAMED)} or a Python function, or with w=, VI= or out=, where a "
        "derivative would flow", src,
        "Pass one of those metrics (by name) or a function of two 1-d arrays, which s2sad "
        "calls for each pair; or compute the distances with NumPy.")


primitive(_other_metric).refusal = _refusal


def pair_distances(u, v, metric, p, V):
    """The distances of u[k] and v[k] along their last axis, by metric."""
    if callable(metric):
        return np.stack([metric(u[k], v[k]) for k in range(len(u))])
    if metric == "euclidean":
        return np.linalg.norm(u - v, axis=-1)
    if metric == "sqeuclidean":
        return np.sum((u - v) ** 2, axis=-1)
    if metric == "cityblock":
        return np.sum(np.abs(u - v), axis=-1)
    if metric == "chebyshev":
        return np.max(np.abs(u - v), axis=-1)
    if metric == "minkowski":
        return np.linalg.norm(u - v, ord=p, axis=-1)
    if metric == "seuclidean":
        return np.sqrt(np.sum((u - v) ** 2 / V, axis=-1))
    if metric == "cosine":
        return 1.0 - np.sum(u * v, axis=-1) / (np.linalg.norm(u, axis=-1) *
                                                np.linalg.norm(v, axis=-1))
    if metric == "correlation":
        uc = u - np.mean(u, axis=-1, keepdims=True)
        vc = v - np.mean(v, axis=-1, keepdims=True)
        return 1.0 - np.sum(uc * vc, axis=-1) / (np.linalg.norm(uc, axis=-1) *
                                                  np.linalg.norm(vc, axis=-1))
    return _other_metric(np.sum((u - v) ** 2, axis=-1))


def pdist(X, metric="euclidean", *, out=None, p=2, w=None, V=None, VI=None):
    """The condensed distance matrix of X's rows (pairs i < j, row by row)."""
    check_argument(np.ndim(X) == 2, "A 2-dimensional array must be passed.")
    i, j = np.triu_indices(np.shape(X)[0], k=1)
    if V is None and metric == "seuclidean":
        V = np.var(X, axis=0, ddof=1)
    if w is not None or VI is not None or out is not None:
        return _other_metric(pair_distances(X[i], X[j], metric, p, V))
    return pair_distances(X[i], X[j], metric, p, V)


def cdist(XA, XB, metric="euclidean", *, out=None, p=2, w=None, V=None, VI=None):
    """The distances of each row of XA to each row of XB, shape (len(XA), len(XB))."""
    check_argument(np.ndim(XA) == 2 and np.ndim(XB) == 2,
                   "XA and XB must be 2-dimensional arrays.")
    check_argument(np.shape(XA)[1] == np.shape(XB)[1],
                   "XA and XB must have the same number of columns (i.e. feature dimension.)")
    if V is None and metric == "seuclidean":
        V = np.var(np.concatenate([XA, XB]), axis=0, ddof=1)
    if callable(metric):
        return np.stack([np.stack([metric(XA[a], XB[b]) for b in range(len(XB))])
                         for a in range(len(XA))])
    d = pair_distances(XA[:, None, :], XB[None, :, :], metric, p, V)
    if w is not None or VI is not None or out is not None:
        return _other_metric(d)
    return d


def squareform(X, force="no", checks=True):
    """A condensed distance vector as the square matrix, or the matrix as the vector."""
    if force != "tovector" and np.ndim(X) == 1:
        n = int(np.ceil(np.sqrt(len(X) * 2)))
        check_argument(n * (n - 1) == len(X) * 2,
                       "Incompatible vector size. It must be a binomial coefficient n "
                       "choose 2 for some integer n >= 2.")
        upper = np.zeros((n, n))
        upper[np.triu_indices(n, k=1)] = X
        return upper + upper.T
    if checks:
        check_argument(bool(np.all(X == np.transpose(X))),
                       "Distance matrix 'X' must be symmetric.")
        check_argument(bool(np.all(np.diag(X) == 0)),
                       "Distance matrix 'X' diagonal must be zero.")
    return X[np.triu_indices(len(X), k=1)]


if sd is not None:
    implement(pair_distances, pair_distances)      # called from the sources: transformed
    implement(sd.pdist, pdist)
    implement(sd.cdist, cdist)
    implement(sd.squareform, squareform)
