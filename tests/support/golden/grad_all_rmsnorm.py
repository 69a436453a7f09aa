# grad_all_rmsnorm: the gradient of rmsnorm with respect to every input. From golden_examples.py:27.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like, unbroadcast, unreduce (s2sad helpers and constants).

def grad_all_rmsnorm(x, w):
    mean_x_pow_2 = xp.mean(x ** 2)
    sqrt_plus = xp.sqrt(mean_x_pow_2 + 1e-06)
    x_over_sqrt_plus = x / sqrt_plus
    out = x_over_sqrt_plus * w
    # grad of: return x / np.sqrt(np.mean(x ** 2) + 1e-6) * w
    dout = ones_like(out)
    del out
    dx_over_sqrt_plus = unbroadcast(dout * w, x_over_sqrt_plus)
    dw = unbroadcast(dout * x_over_sqrt_plus, w)
    dsqrt_plus = -unbroadcast(dx_over_sqrt_plus * x_over_sqrt_plus, sqrt_plus) / sqrt_plus
    del x_over_sqrt_plus
    dplus = dsqrt_plus / (2 * sqrt_plus)
    del dsqrt_plus
    dx_pow_2 = unreduce(dplus * (xp.size(mean_x_pow_2) / xp.size(x)), x)
    del dplus
    dx = unbroadcast(dx_over_sqrt_plus / sqrt_plus, x) + dx_pow_2 * 2 * x
    return dx, dw
