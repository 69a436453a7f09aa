"""Bind a call's arguments to a primitive's rule: which are inputs, which are options.

``np.sum(x, 0)`` binds through NumPy's own signature to ``a=x, axis=0``; the
rule ``bprop_sum(a, out, dout, axis=None, keepdims=False)`` then says ``a`` is
an input and ``axis`` an option.  An argument the rule does not know (such as
``dtype=`` or ``out=``) is refused with the call's location rather than
silently ignored.  ``rewrite`` first makes a call that is another primitive's that
call (``np.linalg.svd(a, compute_uv=False)`` one of the singular values alone).
"""

import inspect

from .. import ir
from ..errors import TransformError

_POS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class _Slot:
    def __init__(self, atom):
        self.atom = atom


# keyword arguments that change how a result is computed, never its value
VALUE_PRESERVING = {"optimize"}


def _is_default(atom, param) -> bool:
    d = param.default
    return (isinstance(atom, ir.Const) and d is not inspect.Parameter.empty
            and (atom.value is d or (type(atom.value) is type(d) and atom.value == d)))


def bind(prim, args, kwargs, loc=None):
    """(inputs in the rule's order, {option: atom}) for a call of prim."""
    rule = prim.bprop or prim.jvp
    if getattr(prim, "varargs", False):
        # every positional argument is an input; a keyword is an option of the rule made
        # for this many inputs (np.meshgrid's indexing=, sparse=, copy=) or refused
        bad = [k for k in kwargs if k not in VALUE_PRESERVING]
        if bad:
            made = prim.rule_for(len(args)) if prim.bprop_factory is not None else rule
            bad = [k for k in bad if made is None or k not in made.options]
        if bad:
            raise TransformError(f"keyword arguments of {prim.name} are not supported by "
                                 f"its derivative rule: {', '.join(bad)}", loc)
        return list(args), dict(kwargs)
    if rule is None:
        return list(args), dict(kwargs)
    if "out" in kwargs and not (isinstance(kwargs["out"], ir.Const) and kwargs["out"].value is None):
        raise TransformError(f"{prim.name}(..., out=...) writes into an existing array, "
                             "which s2sad does not differentiate", loc,
                             "Drop `out=` and use the returned value.")
    names, options = rule.inputs, rule.options
    if prim.signature is not None:
        mapping = _by_signature(prim, names, options, args, kwargs, loc)
    else:
        mapping = _by_rule(prim, names, options, args, kwargs, loc)
    inputs = [mapping[n] if n in mapping else _default_input(prim, n, loc) for n in names]
    opts = {k: mapping[k] for k in options if k in mapping}
    return inputs, opts


# id(fn) -> how(args, kwargs, loc): the (primitive, args, kwargs) of another primitive's
# call that a call of fn is, or None (rules/numpy/decompositions.py: svd(a, compute_uv=False))
REWRITES = {}


def rewrite(prim, args, kwargs, loc=None):
    """(prim, args, kwargs) of a call, or those of the call of another primitive that it is
    (REWRITES), whose rules then apply."""
    how = REWRITES.get(id(prim.fn))
    done = how(args, kwargs, loc) if how is not None else None
    return done if done is not None else (prim, args, kwargs)


def _by_signature(prim, names, options, args, kwargs, loc):
    """{rule parameter: atom}, the call bound through the primitive's own signature."""
    sig = prim.signature
    mapping = {}
    try:
        ba = sig.bind(*[_Slot(a) for a in args], **{k: _Slot(v) for k, v in kwargs.items()})
    except TypeError as e:
        raise TransformError(f"bad call of {prim.name}: {e}", loc) from None
    position = 0
    for pname, value in ba.arguments.items():
        param = sig.parameters[pname]
        if param.kind == inspect.Parameter.VAR_KEYWORD:
            pairs = list(value.items())
        elif param.kind == inspect.Parameter.VAR_POSITIONAL:
            raise TransformError(f"{prim.name} with a variable number of arguments "
                                 "needs a rule that accepts them", loc)
        else:
            pairs = [(pname, value)]
        for name, slot in pairs:
            if name in names or name in options:
                mapping[name] = slot.atom
            elif _is_default(slot.atom, param):
                pass            # dtype=None, out=None written out: the same as leaving it
            elif param.kind == inspect.Parameter.POSITIONAL_ONLY and position < len(names):
                mapping[names[position]] = slot.atom
            else:
                raise TransformError(
                    f"the argument '{name}' of {prim.name} is not supported by its "
                    f"derivative rule", loc,
                    f"Supported: {', '.join(names + list(options))}.")
            if param.kind in _POS:
                position += 1
    return mapping


def _by_rule(prim, names, options, args, kwargs, loc):
    """{rule parameter: atom} for a primitive without a signature: by the rule's names."""
    mapping = {}
    if len(args) > len(names) + len(options):
        raise TransformError(f"too many arguments for {prim.name}", loc)
    for name, a in zip(names + list(options), args):
        mapping[name] = a
    for k, v in kwargs.items():
        if k not in names and k not in options:
            raise TransformError(f"the argument '{k}' of {prim.name} is not supported "
                                 "by its derivative rule", loc)
        mapping[k] = v
    return mapping


def _default_input(prim, n, loc):
    """An input the call leaves out: the primitive's default, if it has one."""
    sig = prim.signature
    default = None
    if sig is not None and n in sig.parameters:
        default = sig.parameters[n].default
    if default is inspect.Parameter.empty or (sig is not None and n in sig.parameters
                                              and repr(default) == "<no value>"):
        raise TransformError(f"{prim.name}() is missing its argument '{n}'", loc)
    return ir.Const(default)
