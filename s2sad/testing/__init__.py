"""Test infrastructure that users may want too: :mod:`s2sad.testing.strict`, a CuPy
stand-in that runs on a CPU (``S2SAD_TEST_BACKEND=strict``)."""
