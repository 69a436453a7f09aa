"""scipy.sparse matrices: which names hold one, and what their operations lower to.

A name holds a sparse matrix when SciPy's sparse constructors made it (``sp.diags(...)``,
``sp.csr_matrix(a)``, ``sp.identity(n)``; rules/scipy/sparse.makes_sparse), when it is a
global or closure's sparse matrix, or when it is made from one by a method that keeps it
sparse (``A.T``, ``A.tocsc()``), its arithmetic (``L / h**2``, ``I - dt * L``) or a
product of two (``A @ B``).  For those (Output.sparse):

    A.dot(x)          =>  A @ x                       (operator.matmul: its rules)
    A.tocsc(), A.T    =>  method_tocsc(A), xp.transpose(A)   (run as SciPy's: no derivative)
    L / h ** 2        =>  sparse_div(L, h ** 2)       (no rule: refused where a derivative
                                                       would flow, `A * x` included)

NumPy's names for array methods (``A.sum()``, ``A.copy()``) are not taken for a sparse
matrix's, which SciPy defines differently: they run as its methods.
"""

import operator

import numpy as np

from ... import ir, registry
from ...rules.python.objects import method_caller
from ...rules.scipy import sparse as rules
from ...runtime import is_sparse


def holds_sparse(out, atom, depth=0) -> bool:
    """Does atom hold a sparse matrix: a name the lowering saw made one (Output.sparse), a
    constant, a global's or closure's name that holds one now (guarded), or a loop's or
    an if's name that may start as or join one (Output.origin)?"""
    if isinstance(atom, ir.Var) and (atom.name in out.sparse or depth < 8 and any(
            holds_sparse(out, a, depth + 1) for a in out.origin.get(atom.name, ()))):
        return True
    value = out.held_value(atom)
    if not is_sparse(value):
        return False
    if isinstance(atom, ir.Var):
        out.guard_held(atom, value)
    return True


def makes_sparse(out, value) -> bool:
    """Is value (bound to a name) a sparse matrix: made by SciPy's constructors, by a
    method or arithmetic that keeps one sparse, or a product of two?"""
    if not isinstance(value, ir.Call) or not isinstance(value.callee, registry.Primitive):
        return isinstance(value, ir.Var) and value.name in out.sparse
    fn = value.callee.fn
    first = value.args[0] if value.args else None
    if fn in rules.ARITHMETIC.values() or rules.makes_sparse(fn):
        return True
    if getattr(value.callee, "method", None) in rules.SPARSE_RESULTS or fn is np.transpose:
        return holds_sparse(out, first)
    return fn is operator.matmul and all(holds_sparse(out, a) for a in value.args)


def arithmetic(out, op, operands):
    """`a op b` (or `-a`) where an operand is a sparse matrix: the sparse_* helper that
    runs it; None where none is (or the operator is @, whose rules hold)."""
    helper = rules.ARITHMETIC.get(op)
    if helper is None or not any(holds_sparse(out, a) for a in operands):
        return None
    return ir.Call(registry.primitive(helper), tuple(operands))


def method(low, receiver, name, args, kwargs, node):
    """A method of a sparse matrix: `A.dot(x)` is A @ x; any other runs as SciPy's (a
    derivative through it refused); None where receiver is no sparse matrix."""
    if not holds_sparse(low.out, receiver):
        return None
    if name == "dot" and len(args) == 1 and not kwargs:
        return ir.Call(registry.primitive(operator.matmul), (receiver, args[0]))
    return low.prim_call(registry.primitive(method_caller(name)), [receiver] + args, kwargs,
                         node)
