# grad_all_rnn: the gradient of rnn with respect to every input. From golden_examples.py:40.
# xp is the array module (numpy or cupy), chosen from the arguments at each call.
# Also bound: add_lhs_grad, matmul_rhs_grad, ones_like, summed, tape_new, tape_pop, tape_push, unreduce (s2sad helpers and constants).

def grad_all_rnn(h, W, n):
    tape = tape_new()
    for t in range(n):
        h_2 = xp.tanh(W @ h)
        tape = tape_push(tape, (h, h_2))
        h = h_2
    out = xp.sum(h)
    # grad of: return np.sum(h)
    dout = ones_like(out)
    dh = unreduce(dout, h)
    dW_terms = xp.zeros_like(W)
    for k in range(len(tape)):
        tape, (h_3, h_4) = tape_pop(tape)
        # grad of: h = np.tanh(W @ h)
        dW_matmul_h_1 = dh * (1 - h_4 * h_4)
        dh = matmul_rhs_grad(dW_matmul_h_1, W, h_3)
        dW_terms = add_lhs_grad(dW_terms, dW_matmul_h_1, W, h_3)
    dW = summed(dW_terms)
    dn = xp.zeros_like(n)
    return dh, dW, dn
