# grad_tanh: the gradient of tanh with respect to x. From <s2sad: tanh>:1.
# xp is the array module (numpy or cupy; math's functions for Python numbers), chosen from the arguments at each call.

def grad_tanh(x):
    out = xp.tanh(x)
    return 1 - out * out
