"""The lowering: a resolved gast tree → the functional form of s2sad.ir, in SSA.

lower.lower is the entry point (Lowering, with lower_control for branches, loops and
inlined calls, lower_builtins, lower_comprehension, lower_effects, lower_nonlocal,
lower_views, lower_templates; closures: function values known at transform time);
inplace refuses an in-place update that another name would see; draws writes a random
draw whose parameters may carry a derivative as NumPy computes it of a standard draw
(rng.normal(mu, sigma) as mu + sigma * rng.standard_normal(shape)).
"""
