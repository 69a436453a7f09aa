"""scipy.linalg's sqrtm and logm of real matrices (stacks of them too), primitives whose
rules give every order through their Frechet derivatives.

    sqrtm(A)       the principal square root X: X X = A
    logm(A)        the principal logarithm X: expm(X) = A

For an analytic f, the Frechet derivative L_f(A, E) is the upper-right block of
f([[A, E], [0, A]]) (Higham 2008, Functions of Matrices, Thm 3.6), and the adjoint of
E -> L_f(A, E) is L_f(A^T, .) (f's Taylor coefficients are real): both rules call sqrtm or
logm itself on the 2n x 2n block, as expm's do (linalg.py), so every order works.  Against
the Sylvester solution X dX + dX X = E and the inverse of expm's Frechet derivative, SciPy's
sqrtm and logm of the block give L_f to about 4e-15 relative, whatever the scale of E (1e-8
to 1e8); tests/rules/test_scipy_lu_matfun.py measures it.

Refused where a derivative would flow: a complex A (the adjoint transposes), and an A with
an eigenvalue on the closed negative real axis, within n eps |A|_1 of it (a negative one
makes the result complex; at a zero one sqrt and log have no derivative).  disp=False
(deprecated in SciPy) changes the result to (X, errest), errest an estimate of rounding
error: such a call gives SciPy's values and refuses any derivative through it by name.
blocksize (deprecated) is passed on to SciPy; it does not change the value.
"""

import numpy as np

from ...errors import DerivativeError, MissingRuleError
from ...ir import Const
from ...registry import defarraylike, defbprop, defjvp, primitive
from .. import binding
from ..numpy.decompositions import frechet_block, upper_right

try:
    from scipy import linalg as sl
except ImportError:          # pragma: no cover - SciPy is optional
    sl = None


def principal_domain(a, what):
    """a, after checking that it is real with no eigenvalue on the closed negative real
    axis (within n eps |a|_1 of it), where the principal sqrt and log are differentiable."""
    if np.iscomplexobj(a):
        raise DerivativeError(f"the derivative of {what} of a complex matrix is not supported")
    w = np.linalg.eigvals(a)
    size = np.sum(np.abs(a), axis=-2).max(axis=-1, keepdims=True)
    tol = a.shape[-1] * np.finfo(np.result_type(a, 1.0)).eps * size
    if np.any((w.imag == 0) & (w.real <= tol)):
        raise DerivativeError(
            f"the derivative of {what} of a matrix with an eigenvalue on the closed negative "
            "real axis (a complex result, or a singular matrix) is not supported",
            None, "s2sad differentiates the principal square root and logarithm of real "
            "matrices whose eigenvalues are off (-inf, 0].")
    return a


def with_errest(A, disp, what):
    """scipy.linalg.sqrtm or logm (what) of A with disp not True: (X, errest) for
    disp=False.  A primitive without rules: SciPy's values, a derivative refused."""
    return getattr(sl, what)(A, disp=disp)


def _with_errest_refusal(src):
    return MissingRuleError(
        "scipy.linalg.sqrtm or logm with disp=False, or a disp known only when the code "
        "runs (a result (X, errest)), where a derivative would flow", src,
        "Leave disp out (SciPy deprecates it): s2sad differentiates the matrix X the call "
        "then returns; errest measures rounding and has no derivative.")


def _disp_call(what):
    """The rewrite of a call of sqrtm or logm (binding.rewrite): one with a disp that is
    not the constant True calls with_errest."""
    def how(args, kwargs, loc):
        disp = kwargs.get("disp", args[1] if len(args) > 1 else None)
        if disp is None or isinstance(disp, Const) and disp.value is True:
            return None
        a = kwargs["A"] if "A" in kwargs else args[0]
        return primitive(with_errest), [a, disp, Const(what)], {}
    return how


if sl is not None:
    defarraylike(sl.sqrtm, sl.logm)     # sqrtm([[a, b], [c, d]])

    @defbprop(principal_domain)
    def bprop_principal_domain(a, out, dout, what):
        return (dout,)

    @defjvp(principal_domain)
    def jvp_principal_domain(a, out, da, what):
        return (da,)

    @defbprop(sl.sqrtm)
    def bprop_sqrtm(A, out, dout, disp=True, blocksize=64):
        a = principal_domain(np.swapaxes(A, -1, -2), "scipy.linalg.sqrtm")
        return (upper_right(sl.sqrtm(frechet_block(a, dout))),)

    @defjvp(sl.sqrtm)
    def jvp_sqrtm(A, out, dA, disp=True, blocksize=64):
        a = principal_domain(A, "scipy.linalg.sqrtm")
        return (upper_right(sl.sqrtm(frechet_block(a, dA))),)

    @defbprop(sl.logm)
    def bprop_logm(A, out, dout, disp=True):
        a = principal_domain(np.swapaxes(A, -1, -2), "scipy.linalg.logm")
        return (upper_right(sl.logm(frechet_block(a, dout))),)

    @defjvp(sl.logm)
    def jvp_logm(A, out, dA, disp=True):
        a = principal_domain(A, "scipy.linalg.logm")
        return (upper_right(sl.logm(frechet_block(a, dA))),)

    primitive(with_errest).refusal = _with_errest_refusal
    binding.REWRITES[id(sl.sqrtm)] = _disp_call("sqrtm")
    binding.REWRITES[id(sl.logm)] = _disp_call("logm")
