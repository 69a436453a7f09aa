"""Reverse mode: the K-transform (reverse.grad_function, reverse.fprop_function), with
reverse_control for branches, loops and recursive calls and reverse_checkpoint for a
checkpointed loop's Revolve sweep.
"""
