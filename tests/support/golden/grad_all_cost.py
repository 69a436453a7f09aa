# grad_all_cost: the gradient of cost with respect to every input. From golden_examples.py:10.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like, unbroadcast (s2sad helpers and constants).

def grad_all_cost(x, y):
    x_plus_y = x + y
    out = x * x_plus_y
    # grad of: return x * (x + y)
    dout = ones_like(out)
    del out
    dx_plus_y = unbroadcast(dout * x, x_plus_y)
    dy = unbroadcast(dx_plus_y, y)
    dx = unbroadcast(dout * x_plus_y, x) + unbroadcast(dx_plus_y, x)
    return dx, dy
