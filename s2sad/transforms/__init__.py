"""The passes, one per module: parse → fence → resolve → anf → kform → optimize → codegen."""
