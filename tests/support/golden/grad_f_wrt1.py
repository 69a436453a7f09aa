# grad_f: the gradient of f with respect to x2. From golden_examples.py:14.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like, shape_like, unbroadcast (s2sad helpers and constants).

def grad_f(x1, x2):
    x1_times_x2 = x1 * x2
    plus = xp.log(x1) + x1_times_x2
    x1_times_x2 = shape_like(x1_times_x2)
    out = plus - xp.sin(x2)
    plus = shape_like(plus)
    # grad of: return np.log(x1) + x1 * x2 - np.sin(x2)
    dout = ones_like(out)
    del out
    dplus = unbroadcast(dout, plus)
    dsin_x2 = unbroadcast(-dout, x2)
    dx1_times_x2 = unbroadcast(dplus, x1_times_x2)
    del dplus
    dx2 = dsin_x2 * xp.cos(x2) + unbroadcast(dx1_times_x2 * x1, x2)
    return dx2
