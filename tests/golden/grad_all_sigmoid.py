# grad_all_sigmoid: the gradient of sigmoid with respect to every input. From golden_examples.py:18.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: ones_like (s2sad helpers and constants).

def grad_all_sigmoid(x):
    exp_neg_x = xp.exp(-x)
    plus = 1 + exp_neg_x
    out = 1 / plus
    # grad of: return 1 / (1 + np.exp(-x))
    dout = ones_like(out)
    dneg_x = -dout * out / plus * exp_neg_x
    dx = -dneg_x
    return (dx,)
