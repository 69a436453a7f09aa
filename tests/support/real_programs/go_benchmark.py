"""Global optimization test functions in the style of scipy's
benchmarks/go_benchmark_functions.

A ``Benchmark`` base class keeps the dimensionality, the bounds and an
evaluation counter; each problem is a subclass whose ``fun(self, x, *args)``
counts the evaluation and returns the objective, written with names imported
from numpy (``sum`` is numpy's).  Rosenbrock calls scipy.optimize.rosen.
"""

import numpy as np
from numpy import abs, cos, exp, pi, sqrt, sum, asarray
from scipy.optimize import rosen


class Benchmark:
    def __init__(self, dimensions):
        self._dimensions = dimensions
        self.nfev = 0
        self.fglob = np.nan
        self.global_optimum = None
        self.change_dimensionality = False
        self.custom_bounds = None

    def __str__(self):
        return '{0} ({1} dimensions)'.format(self.__class__.__name__, self.N)

    def initial_vector(self, rs=np.random):
        return asarray([rs.uniform(l, u) for l, u in self.bounds])

    def success(self, x, tol=1.e-5):
        val = self.fun(asarray(x))
        return abs(val - self.fglob) < tol

    def fun(self, x, *args):
        raise NotImplementedError

    @property
    def bounds(self):
        if self.change_dimensionality:
            return [self._bounds[0]] * self.N
        return self._bounds

    @property
    def N(self):
        return self._dimensions


class Rosenbrock(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-30.] * self.N, [30.0] * self.N))
        self.custom_bounds = [(-2, 2), (-2, 2)]
        self.global_optimum = [[1 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1
        return rosen(x)


class Ackley01(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-35.0] * self.N, [35.0] * self.N))
        self.global_optimum = [[0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1
        u = sum(x ** 2)
        v = sum(cos(2 * pi * x))
        return (-20. * exp(-0.2 * sqrt(u / self.N))
                - exp(v / self.N) + 20. + exp(1.))


class Rastrigin(Benchmark):
    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)
        self._bounds = list(zip([-5.12] * self.N, [5.12] * self.N))
        self.global_optimum = [[0 for _ in range(self.N)]]
        self.fglob = 0.0
        self.change_dimensionality = True

    def fun(self, x, *args):
        self.nfev += 1
        return 10.0 * self.N + sum(x ** 2.0 - 10.0 * cos(2.0 * pi * x))


def _example(cls):
    bench = cls(dimensions=4)
    x = bench.initial_vector(rs=np.random.RandomState(0)) / 10.0 + 0.3
    return bench.fun, (x,), {"wrt": 0, "order": 2, "counter": (bench, "nfev")}


def example():
    return _example(Rosenbrock)


def example_ackley():
    return _example(Ackley01)


def example_rastrigin():
    return _example(Rastrigin)
