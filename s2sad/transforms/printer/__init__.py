"""Code generation: the functional form → readable Python source → a function object
(codegen.generate; codegen_expr, codegen_names, codegen_stmts).
"""
