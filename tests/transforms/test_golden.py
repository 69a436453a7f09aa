"""Golden files: the generated source of the README's and the guide's examples, checked in.

A change in generated code must be seen in review.  When it is intended,
regenerate with S2SAD_UPDATE_GOLDEN=1 and commit the new files.
"""

import os
import pathlib

import numpy as np
import pytest

import s2sad
from s2sad import fprop, grad, grad_all, source, value_and_grad

import golden_examples as ex

HERE = pathlib.Path(ex.__file__).parent / "golden"

CASES = {
    "grad_all_cost": lambda: grad_all(ex.cost),
    "grad_all_f": lambda: grad_all(ex.f),
    "grad_f_wrt1": lambda: grad(ex.f, wrt=1),
    "value_and_grad_f": lambda: value_and_grad(ex.f),
    "fprop_f": lambda: fprop(ex.f),
    "grad_grad_f": lambda: grad(grad(ex.f)),
    "grad_tanh": lambda: grad(np.tanh),
    "grad_all_sigmoid": lambda: grad_all(ex.sigmoid),
    "grad_all_layer": lambda: grad_all(ex.layer),
    "grad_all_rmsnorm": lambda: grad_all(ex.rmsnorm),
    "grad_all_branch": lambda: grad_all(ex.relu_or_sine),
    "grad_all_loop": lambda: grad_all(ex.rnn),
    "grad_all_closure": lambda: grad_all(ex.smooth_max),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    text = source(CASES[name]())
    path = HERE / f"{name}.py"
    if os.environ.get("S2SAD_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"no golden file {path}; run with S2SAD_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"generated source of {name} changed; see {path}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_files_are_valid_python(name):
    compile((HERE / f"{name}.py").read_text(), name, "exec")
