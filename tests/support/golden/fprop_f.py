# fprop_f(...) -> (result, bprop); bprop(dout) returns the gradients of the inputs. From golden_examples.py:14.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: shape_like, unbroadcast (s2sad helpers and constants).

def fprop_f(x1, x2):
    x1_times_x2 = x1 * x2
    plus = xp.log(x1) + x1_times_x2
    x1_times_x2_like = shape_like(x1_times_x2)

    def bprop_f(dout):
        # grad of: return np.log(x1) + x1 * x2 - np.sin(x2)
        dplus = unbroadcast(dout, plus)
        dsin_x2 = unbroadcast(-dout, x2)
        dlog_x1 = unbroadcast(dplus, x1)
        dx1_times_x2 = unbroadcast(dplus, x1_times_x2_like)
        del dplus
        dx1 = unbroadcast(dx1_times_x2 * x2, x1) + dlog_x1 / x1
        del dlog_x1
        dx2 = dsin_x2 * xp.cos(x2) + unbroadcast(dx1_times_x2 * x1, x2)
        return dx1, dx2

    return plus - xp.sin(x2), bprop_f
