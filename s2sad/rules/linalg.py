"""Linear algebra: matmul (in arith), dot, outer, einsum, trace, linalg.norm."""
