# grad_all_relu_or_sine: the gradient of relu_or_sine with respect to every input. From golden_examples.py:31.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like, unbroadcast (s2sad helpers and constants).

def grad_all_relu_or_sine(x, y):
    x_gt_0 = x > 0
    if x_gt_0:
        z = x * y
        w = xp.sin(z)
    else:
        w = -x
    out = w * y
    # grad of: return w * y
    dout = ones_like(out)
    del out
    dw = unbroadcast(dout * y, w)
    if x_gt_0:
        # grad of: w = np.sin(z)
        dz = dw * xp.cos(z)
        # grad of: z = x * y
        dx = unbroadcast(dz * y, x)
        dy = unbroadcast(dz * x, y)
    else:
        # grad of: w = -x
        dx = -dw
        dy = xp.zeros_like(y)
    del dw
    dy = unbroadcast(dout * w, y) + dy
    return dx, dy
