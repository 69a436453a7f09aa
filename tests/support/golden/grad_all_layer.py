# grad_all_layer: the gradient of layer with respect to every input. From golden_examples.py:22.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: matmul_lhs_grad, matmul_rhs_grad, shape_like, unbroadcast (s2sad helpers and constants).

def grad_all_layer(x, W, b):
    x_matmul_W = x @ W
    h = xp.tanh(x_matmul_W + b)
    x_matmul_W = shape_like(x_matmul_W)
    # grad of: return np.sum(h ** 2)
    dh = 2 * h
    # grad of: h = np.tanh(x @ W + b)
    dx_matmul_W_plus_b = dh * (1 - h * h)
    del dh, h
    dx_matmul_W = unbroadcast(dx_matmul_W_plus_b, x_matmul_W)
    db = unbroadcast(dx_matmul_W_plus_b, b)
    del dx_matmul_W_plus_b
    dx = matmul_lhs_grad(dx_matmul_W, x, W)
    dW = matmul_rhs_grad(dx_matmul_W, x, W)
    return dx, dW, db
