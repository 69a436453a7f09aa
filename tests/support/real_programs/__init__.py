"""Whole programs written the way published NumPy code writes them.

Each module is one objective of the kind people differentiate (black-box VI,
a GP marginal likelihood, a censored survival fit, a network of layer objects that keep their inputs, an LSTM, a smoke simulation, a GMM, an HMM forward
pass, a model class, a logistic regression that prints, a benchmark class, a
convnet of layer objects, a CS231n network keeping its weights in a dict attribute, Eight
Schools with a half-Cauchy prior, a Lennard-Jones cluster with masks combined by `&`,
a REINFORCE surrogate loss with a defaultdict of per-action losses), written with plain numpy/scipy in its authors' style,
not shaped to suit s2sad.

Each module has ``example()`` (some have more) returning
``(objective, args, info)``, where ``info`` holds

* ``wrt``: the index of the argument to differentiate;
* ``order``: 2 where the objective is smooth enough for second derivatives, else 1;
* ``reseed``: a callable that puts the program's random generator back in
  its starting state (the objective draws samples when it runs), or absent;
* ``counter``: ``(object, attribute)`` of a call counter the objective bumps once
  per evaluation, or absent;
* ``prints``: True where the objective prints as it runs;
* ``jax``: False where the program calls SciPy that has no JAX counterpart;
* ``jax_args``: arguments for the JAX reference where they must differ (JAX
  cannot format a traced number), or absent.

tests/programs/test_real_programs.py checks each against finite differences and, where
``jax`` can be imported, against JAX.
"""

# (id, module name, name of the function returning (objective, args, info))
PROGRAMS = [
    ("black_box_svi", "black_box_svi", "example"),
    ("gaussian_process", "gaussian_process", "example"),
    ("char_lstm", "char_lstm", "example"),
    ("fluidsim", "fluidsim", "example"),
    ("gmm", "gmm", "example"),
    ("hmm", "hmm", "example"),
    ("mlp_class_method", "mlp_class", "example"),
    ("mlp_class_flat", "mlp_class", "example_flat"),
    ("logistic_verbose", "logistic_verbose", "example"),
    ("go_rosenbrock", "go_benchmark", "example"),
    ("go_ackley", "go_benchmark", "example_ackley"),
    ("go_rastrigin", "go_benchmark", "example_rastrigin"),
    ("ode_fit", "ode_fit", "example"),
    ("gp_fit", "gp_fit", "example"),
    ("layer_objects", "layer_objects", "example"),
    ("mlp_built_inside", "mlp_built_inside", "example"),
    ("min_char_rnn", "min_char_rnn", "example"),
    ("censored_gamma", "censored_gamma", "example"),
    ("scratch_layers", "scratch_layers", "example"),
    ("scratch_batchnorm", "scratch_batchnorm", "example"),
    ("cs231n_two_layer", "cs231n_two_layer", "example"),
    ("eight_schools", "eight_schools", "example"),
    ("lennard_jones", "lennard_jones", "example"),
    ("reinforce", "reinforce", "example"),
]
