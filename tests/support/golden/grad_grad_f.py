# grad_grad_f: the gradient with respect to x1 of the gradient of f with respect to x1, written as the forward-mode derivative of grad_f (its gradient with respect to x1) for a tangent of ones in x1: second derivatives commute. From grad_f (generated from golden_examples.py:14).
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like, shape_like, unbroadcast (s2sad helpers and constants).

def grad_grad_f(x1, x2):
    dx1 = xp.ones_like(x1)
    x1_times_x2 = x1 * x2
    plus = xp.log(x1) + x1_times_x2
    del x1_times_x2
    out = plus - xp.sin(x2)
    plus = shape_like(plus)
    dout = ones_like(out)
    del out
    dplus = unbroadcast(dout, plus)
    dlog_x1 = unbroadcast(dplus, x1)
    del dplus
    dlog_x1_over_x1 = dlog_x1 / x1
    del dlog_x1
    ddx1 = -dx1 * dlog_x1_over_x1 / x1
    return ddx1
