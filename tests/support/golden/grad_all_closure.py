# grad_all_smooth_max: the gradient of smooth_max with respect to every input. From golden_examples.py:46.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like, unbroadcast (s2sad helpers and constants).

def grad_all_smooth_max(x, y):
    exp_x = xp.exp(x)
    exp_y = xp.exp(y)
    exp_x_plus_exp_y = exp_x + exp_y
    log = xp.log(exp_x_plus_exp_y)
    out = log * y
    # grad of: return soft(x, y) * y
    dout = ones_like(out)
    del out
    dlog = unbroadcast(dout * y, log)
    # grad of: soft = lambda a, b: np.log(np.exp(a) + np.exp(b))    # noqa: E731
    dexp_x_plus_exp_y = dlog / exp_x_plus_exp_y
    del dlog, exp_x_plus_exp_y
    dexp_x = unbroadcast(dexp_x_plus_exp_y, x)
    dexp_y = unbroadcast(dexp_x_plus_exp_y, y)
    del dexp_x_plus_exp_y
    dx = dexp_x * exp_x
    del dexp_x, exp_x
    dy = unbroadcast(dout * log, y) + dexp_y * exp_y
    return dx, dy
