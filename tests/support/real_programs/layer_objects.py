"""A small convolutional classifier built from layer objects, in the style of HIPS
autograd's convnet example: each layer is an object of its own class with a
``forward_pass(inputs, param_vector)`` method and a ``build_weights_dict`` that lays
out its parameters in one flat vector; the loss runs ``for layer in layers:`` over
the list of layers, slicing each layer's parameters out of the vector.  The
convolution is written with ``np.einsum`` over sliding windows
(``np.lib.stride_tricks.sliding_window_view``), the pooling with a reshape.
"""

import numpy as np
import numpy.random as npr
from scipy.special import logsumexp


class WeightsParser:
    """Slices of one flat vector, by name."""

    def __init__(self):
        self.idxs_and_shapes = {}
        self.N = 0

    def add_weights(self, name, shape):
        start = self.N
        self.N += int(np.prod(shape))
        self.idxs_and_shapes[name] = (slice(start, self.N), shape)

    def get(self, vect, name):
        idxs, shape = self.idxs_and_shapes[name]
        return np.reshape(vect[idxs], shape)


class conv_layer:
    def __init__(self, kernel_shape, num_filters):
        self.kernel_shape = kernel_shape
        self.num_filters = num_filters

    def forward_pass(self, inputs, param_vector):
        # inputs: [N, color, y, x]; params: [color, filter, y, x]
        params = self.parser.get(param_vector, "params")
        biases = self.parser.get(param_vector, "biases")
        windows = np.lib.stride_tricks.sliding_window_view(inputs, self.kernel_shape,
                                                           axis=(2, 3))
        conv = np.einsum("ncyxij,cfij->nfyx", windows, params)
        return conv + biases

    def build_weights_dict(self, input_shape):
        self.parser = WeightsParser()
        self.parser.add_weights("params", (input_shape[0], self.num_filters)
                                + self.kernel_shape)
        self.parser.add_weights("biases", (1, self.num_filters, 1, 1))
        output_shape = (self.num_filters,) + tuple(
            s - k + 1 for s, k in zip(input_shape[1:], self.kernel_shape))
        return self.parser.N, output_shape


class maxpool_layer:
    def __init__(self, pool_shape):
        self.pool_shape = pool_shape

    def build_weights_dict(self, input_shape):
        output_shape = list(input_shape)
        for i in [0, 1]:
            assert input_shape[i + 1] % self.pool_shape[i] == 0, "maxpool shape should tile input exactly"
            output_shape[i + 1] = input_shape[i + 1] // self.pool_shape[i]
        return 0, output_shape

    def forward_pass(self, inputs, param_vector):
        new_shape = inputs.shape[:2]
        for i in [0, 1]:
            pool_width = self.pool_shape[i]
            img_width = inputs.shape[i + 2]
            new_shape += (img_width // pool_width, pool_width)
        result = inputs.reshape(new_shape)
        return np.max(np.max(result, axis=3), axis=4)


class full_layer:
    def __init__(self, size):
        self.size = size

    def build_weights_dict(self, input_shape):
        input_size = int(np.prod(input_shape, dtype=int))
        self.parser = WeightsParser()
        self.parser.add_weights("params", (input_size, self.size))
        self.parser.add_weights("biases", (self.size,))
        return self.parser.N, (self.size,)

    def forward_pass(self, inputs, param_vector):
        params = self.parser.get(param_vector, "params")
        biases = self.parser.get(param_vector, "biases")
        if inputs.ndim > 2:
            inputs = inputs.reshape((inputs.shape[0], int(np.prod(inputs.shape[1:]))))
        return self.nonlinearity(np.dot(inputs[:, :], params) + biases)


class tanh_layer(full_layer):
    def nonlinearity(self, x):
        return np.tanh(x)


class softmax_layer(full_layer):
    def nonlinearity(self, x):
        return x - logsumexp(x, axis=1, keepdims=True)


def make_nn_funs(input_shape, layer_specs, L2_reg):
    parser = WeightsParser()
    cur_shape = input_shape
    for layer in layer_specs:
        N_weights, cur_shape = layer.build_weights_dict(cur_shape)
        parser.add_weights(layer, (N_weights,))

    def predictions(W_vect, inputs):
        """Outputs normalized log-probabilities.
        shape of inputs : [data, color, y, x]"""
        cur_units = inputs
        for layer in layer_specs:
            cur_weights = parser.get(W_vect, layer)
            cur_units = layer.forward_pass(cur_units, cur_weights)
        return cur_units

    def loss(W_vect, X, T):
        log_prior = -L2_reg * np.dot(W_vect, W_vect)
        log_lik = np.sum(predictions(W_vect, X) * T)
        return -log_prior - log_lik

    return parser.N, predictions, loss


INPUT_SHAPE = (1, 6, 6)
LAYERS = [conv_layer((3, 3), 2), maxpool_layer((2, 2)), tanh_layer(5), softmax_layer(3)]
N_WEIGHTS, pred_fun, loss_fun = make_nn_funs(INPUT_SHAPE, LAYERS, L2_reg=0.1)


def example():
    rs = npr.RandomState(0)
    X = rs.randn(4, *INPUT_SHAPE)
    T = np.eye(3)[rs.randint(0, 3, size=4)]
    W = 0.3 * rs.randn(N_WEIGHTS)
    return loss_fun, (W, X, T), {"wrt": 0, "order": 1, "jax": False}
