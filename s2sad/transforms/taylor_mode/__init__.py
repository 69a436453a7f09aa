"""Taylor mode: K coefficients per value through the function in one pass
(taylor.taylor_function; taylor_emit, taylor_batched for stacked directions,
taylor_directions for the seeds of mixed partials).
"""
