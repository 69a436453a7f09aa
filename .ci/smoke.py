"""Smoke test of an installed s2sad (run by .ci/run in a fresh venv, outside the checkout).

It checks what an editable install would hide: the package and its data files are in
the wheel, the console script is installed, and a function defined in a file
differentiates.
"""

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

import s2sad
from s2sad.check import check_grads

here = os.path.dirname(os.path.abspath(s2sad.__file__))
assert "site-packages" in here, f"s2sad was imported from {here}, not from the installed wheel"
assert os.path.exists(os.path.join(here, "py.typed")), "py.typed is missing from the wheel"

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.py")
    with open(path, "w") as fh:
        fh.write(textwrap.dedent("""\
            import numpy as np

            def loss(W, x):
                return np.sum(np.tanh(x @ W) ** 2)
            """))
    sys.path.insert(0, tmp)
    import model
    W, x = np.full((3, 2), 0.1), np.linspace(-1, 1, 12).reshape(4, 3)
    dW = s2sad.grad(model.loss)(W, x)
    t = np.tanh(x @ W)
    assert np.allclose(dW, x.T @ (2 * t * (1 - t * t))), dW
    check_grads(model.loss, (W, x), order=2, modes=("rev", "fwd"), wrt=0)

    exe = os.path.join(os.path.dirname(sys.executable), "s2sad")
    r = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["s2sad", s2sad.__version__], r.stdout
    r = subprocess.run([exe, "show", f"{path}:loss"], capture_output=True, text=True, check=True)
    assert "def grad_loss(W, x):" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([sys.executable, "-m", "s2sad", "show", f"{path}:loss", "--wrt", "all"],
                       capture_output=True, text=True, check=True)
    assert "def grad_all_loss(W, x):" in r.stdout, r.stdout + r.stderr
print(f"smoke test passed: s2sad {s2sad.__version__} installed at {here}")
