"""Karpathy's min-char-rnn loss (gist 'Minimal character-level Vanilla RNN model', 2015),
its forward pass as published: a dict per time step of one-hot inputs, hidden states and
probabilities, the one-hot written with ``xs[t][inputs[t]] = 1``, the loss summed with
``+=``.  The hand-written backward pass is left out; s2sad writes it.
"""

import numpy as np

data = "hello world, hello rnn"
chars = sorted(set(data))
vocab_size = len(chars)
char_to_ix = {ch: i for i, ch in enumerate(chars)}
hidden_size = 10
seq_length = 6


def lossFun(Wxh, Whh, Why, bh, by, inputs, targets, hprev):
  """
  inputs,targets are both list of integers.
  hprev is Hx1 array of initial hidden state
  returns the loss
  """
  xs, hs, ys, ps = {}, {}, {}, {}
  hs[-1] = np.copy(hprev)
  loss = 0
  # forward pass
  for t in range(len(inputs)):
    xs[t] = np.zeros((vocab_size,1)) # encode in 1-of-k representation
    xs[t][inputs[t]] = 1
    hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t-1]) + bh) # hidden state
    ys[t] = np.dot(Why, hs[t]) + by # unnormalized log probabilities for next chars
    ps[t] = np.exp(ys[t]) / np.sum(np.exp(ys[t])) # probabilities for next chars
    loss += -np.log(ps[t][targets[t],0]) # softmax (cross-entropy loss)
  return loss


def example():
    rs = np.random.RandomState(1)
    Wxh = rs.randn(hidden_size, vocab_size) * 0.1
    Whh = rs.randn(hidden_size, hidden_size) * 0.1
    Why = rs.randn(vocab_size, hidden_size) * 0.1
    bh, by = np.zeros((hidden_size, 1)), np.zeros((vocab_size, 1))
    inputs = [char_to_ix[ch] for ch in data[:seq_length]]
    targets = [char_to_ix[ch] for ch in data[1:seq_length + 1]]
    hprev = np.zeros((hidden_size, 1))
    return lossFun, (Wxh, Whh, Why, bh, by, inputs, targets, hprev), {"wrt": 1, "order": 2,
                                                                   "jax": False}
