"""The optimizer: generated functions simplified to a fixed point (optimize.optimize;
optimize_cse, optimize_dce, optimize_flow, optimize_acc, optimize_tape; specialize for
known shapes), then optimize_release lets values read only for their shapes go.
"""
