"""Rules of SciPy's functions, registered when SciPy imports (it is optional).

    special     erf, erfinv, expit, logit, gammaln, digamma, polygamma, log_ndtr, logsumexp
    special_more
                gamma, rgamma, loggamma, beta(ln), poch, binom, multigammaln, entropies, ndtri,
                erfcx, dawsn, Bessel functions of integer order, exp1, expn, spence, boxcox,
                huber losses, orthogonal polynomials
    incomplete  gammainc(c), betainc(c), stdtr, pdtr: in x and in their shape parameters
    linalg      solve_triangular, cholesky, expm, solve, inv, det
    lu          lu_factor (rules), lu and lu_solve as NumPy code on it
    matfun      sqrtm and logm: Frechet derivatives from 2n x 2n blocks
    stats       the distributions, as NumPy code s2sad transforms
    stats_more  more distributions (expon, lognorm, laplace, ..., binom, nbinom, geom)
    stats_extra betabinom, multinomial, skewnorm, vonmises, multivariate_t, f
    integrate   odeint and solve_ivp: adjoint and sensitivity equations; quad
    quadrature  trapezoid, cumulative_trapezoid, simpson over samples, as NumPy code
    optimize    scipy.optimize's test functions, as NumPy code
    interpolate calls of PPoly (CubicSpline, PchipInterpolator, Akima1DInterpolator) and
                BSpline objects, as NumPy code
    signal      convolve, correlate, fftconvolve, convolve2d, correlate2d
    iir         lfilter (zi, zf), lfilter_zi, sosfilt, filtfilt: two filter primitives
    savgol      savgol_filter, as NumPy code
    spatial     scipy.spatial.distance's pdist, cdist and squareform, as NumPy code
    ndimage     correlate(1d), convolve(1d), gaussian, uniform, sobel, prewitt, laplace filters
    sparse      products of constant scipy.sparse matrices with arrays, spsolve
"""

from . import special, special_more, incomplete, linalg, optimize, stats, integrate, interpolate  # noqa: F401
from . import signal, spatial, quadrature  # noqa: F401
from . import iir, savgol  # noqa: F401
from . import stats_more  # noqa: F401
from . import stats_extra  # noqa: F401
from . import ndimage  # noqa: F401
from . import lu, matfun  # noqa: F401
from . import sparse  # noqa: F401
