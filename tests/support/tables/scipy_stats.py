"""Rows for s2sad/rules/scipy/stats.py's primitives (a distribution function in x, its
shape parameters held constant, as the sources pass them): none without SciPy."""

from rule_table import Row

try:
    from scipy import stats
    from s2sad.rules.scipy import stats as SST
except ImportError:          # pragma: no cover - SciPy is optional
    stats = None

ROWS = []
if stats is not None:
    ROWS += [
        Row(lambda x: SST.gammainc_in_x(2.5, x), domain=(0.2, 4.0),
            also=(SST.gammainc_in_x,), id="gammainc_in_x"),
        Row(lambda x: SST.gammaincc_in_x(2.5, x), domain=(0.2, 4.0),
            also=(SST.gammaincc_in_x,), id="gammaincc_in_x"),
        Row(lambda x: SST.betainc_in_x(2.5, 1.5, x), domain=(0.1, 0.9),
            also=(SST.betainc_in_x,), id="betainc_in_x"),
        Row(lambda x: SST.betaincc_in_x(2.5, 1.5, x), domain=(0.1, 0.9),
            also=(SST.betaincc_in_x,), id="betaincc_in_x"),
        Row(lambda t: SST.stdtr_in_t(3.5, t, SST.t_log_norm(1.75)),
            also=(SST.stdtr_in_t,), id="stdtr_in_t"),
        Row(lambda mu: SST.pdtr_in_mu(3.0, mu), domain=(0.2, 4.0),
            also=(SST.pdtr_in_mu,), id="pdtr_in_mu"),
    ]
