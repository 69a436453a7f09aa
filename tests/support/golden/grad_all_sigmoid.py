# grad_all_sigmoid: the gradient of sigmoid with respect to every input. From golden_examples.py:18.
# xp is the array module (numpy or cupy; math's functions for Python numbers), chosen from the arguments at each call.

def grad_all_sigmoid(x):
    exp_neg_x = xp.exp(-x)
    plus = 1 + exp_neg_x
    out = 1 / plus
    # grad of: return 1 / (1 + np.exp(-x))
    dplus = -out / plus
    del out, plus
    dneg_x = dplus * exp_neg_x
    del dplus, exp_neg_x
    dx = -dneg_x
    return (dx,)
