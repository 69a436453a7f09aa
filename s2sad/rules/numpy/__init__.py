"""Rules of NumPy's functions and operators, one module per family.

    arith           operators and their NumPy spellings: + - * / ** % @, comparisons
    ufuncs          elementwise math: trigonometric, exponential, logarithmic and friends
    reductions      sum, mean, max, min, prod, var, std, cumsum with axis and keepdims
    shape           reshape, transpose, concatenate, stack, broadcast_to, tile, full, ...
    einsum          einsum, and the helpers that keep its derivatives einsums
    linalg          dot, inner, outer, tensordot, trace, kron, cross, norm, det, inv, solve
    decompositions  slogdet, eigh, eig, svd, cholesky, qr, pinv, lstsq, matrix_power
    indexing        x[i], slices, masks, take, take_along_axis
    arrange         diag, tril, triu, append, split, roll, rot90, select, ...
    padding         pad, diff, gradient
    sorting         sort, partition, quantile, percentile, median, ptp
    statistics      cumprod, the nan-reductions, nan_to_num, sinc
    averages        average, cov, corrcoef, trapezoid, linspace, ...
    signal          interp, convolve, correlate, polyval, vander, ...
    casts           np.array(x, dtype=d), astype
    windows         np.lib.stride_tricks.sliding_window_view
    fft             np.fft: fft, ifft, rfft, irfft, fft2, fftn, ..., fftshift, fftfreq
    bessel          np.i0, as NumPy code
    polynomials     np.polynomial's polyval, chebval, legval, hermval, hermeval, lagval
    functional      np.apply_along_axis, np.vectorize: lowered as the loops they run
"""

from . import arith, ufuncs, reductions, shape, einsum, linalg, indexing  # noqa: F401
from . import arrange, padding, decompositions, sorting, statistics, averages  # noqa: F401
from . import signal, casts, windows, fft, bessel, polynomials, functional  # noqa: F401
