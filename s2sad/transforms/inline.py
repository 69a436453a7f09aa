"""Rules as code: what reverse and forward mode share to inline a rule.

A rule (``@bprop``, ``@defjvp``) is ordinary Python source.  ``rule_ir``
lowers it once into the functional form; ``inline_body`` copies its
statements into the code being transformed, each under a fresh name, with
the rule's parameters bound to the call's atoms (``rule_scope``);
``rule_results`` reads the tuple literal it returns (one gradient, or one
tangent contribution, per input).  ``plus`` is the primitive that sums
adjoints and tangent contributions.

Input: a registry.Rule and the ir.Call it applies to.  Output: statements
passed to the caller's ``emit(target, value) -> ir.Var``; nothing else is
written.
"""

import operator
from typing import Dict, List

from .. import ir, registry
from ..errors import RuleError, TransformError
from .frontend import fence, parse, resolve
from .lowering import lower
from .names import hint_for


def refuse_varied_options(call, varies, src, mode: str):
    """For the forward-type transforms: an index of data (np.r_'s) and a keyword option of
    a rule get no tangent, so neither may depend on a differentiated input.  varies(atom):
    whether it has a tangent (coefficients) here."""
    prim = call.callee
    for i in prim.index_args:
        if i < len(call.args) and varies(call.args[i]) and registry.data_index(call.args[0]):
            raise registry.active_index_error(prim, i, src)
    for k, a in call.kwargs:
        if varies(a):
            raise TransformError(f"{mode}: the keyword argument {k}= of "
                                 f"{registry.display_name(prim)} depends on a differentiated "
                                 "input", src, "Pass it positionally.")


def plus():
    """operator.add, as the primitive adjoints and tangents are summed with."""
    return registry.primitive(operator.add)


def rule_ir(rule: registry.Rule) -> ir.Function:
    """The functional form of a rule's source, parsed once."""
    if rule._ir is None:
        try:
            parsed = parse.parse(rule.fn)
            parsed.rule = True
            fence.fence(parsed)
            res = resolve.resolve(parsed)
            func, out = lower.lower(parsed, res)
        except Exception as e:
            raise RuleError(f"cannot read the rule {rule.fn.__qualname__}: {e}") from e
        if any(v[0] != "global" for v in out.externals.values()) or out.externals:
            raise RuleError(f"rule {rule.fn.__qualname__} reads the global values "
                            f"{sorted(out.externals)}; rules may only call functions")
        func.tuples = out.tuples
        rule._ir = func
    return rule._ir


def check_arity(rule: registry.Rule, call: ir.Call, what: str, src) -> None:
    """A call must pass as many inputs as its rule (what: "rule", "forward rule") takes."""
    n = len(rule.inputs)
    if len(call.args) != n:
        raise TransformError(f"{call.callee.name} called with {len(call.args)} inputs; its "
                             f"{what} takes {n}", src)


def rule_scope(rule: registry.Rule, call: ir.Call, target: str,
               extra: Dict[str, ir.Atom]) -> Dict[str, ir.Atom]:
    """The rule's names bound to the call: its inputs to the arguments, `out` to
    target, then extra (dout, or the tangents), then its options to the keyword
    arguments or their defaults."""
    sub: Dict[str, ir.Atom] = dict(zip(rule.inputs, call.args))
    sub["out"] = ir.Var(target)
    sub.update(extra)
    kw = dict(call.kwargs)
    for k, default in rule.options.items():
        sub[k] = kw.get(k, ir.Const(default))
    return sub


def rule_results(rule: registry.Rule, rf: ir.Function, what: str, each: str) -> List[ir.Atom]:
    """The items of the tuple literal the rule returns, in the rule's own names;
    a RuleError unless there is one per input.  what: "rule" or "forward rule";
    each: what an item is ("gradient", "contribution")."""
    r = rf.result
    defs = {st.target: st.value for st in rf.body[:-1]}
    if isinstance(r, ir.Const) and isinstance(r.value, tuple):
        parts = [ir.Const(x) for x in r.value]
    elif isinstance(r, ir.Var) and isinstance(defs.get(r.name), ir.Pack):
        parts = list(defs[r.name].items)
    else:
        raise RuleError(f"{what} {rule.fn.__qualname__} must return a tuple literal "
                        f"(one {each} per input)")
    n = len(rule.inputs)
    if len(parts) != n:
        raise RuleError(f"{what} {rule.fn.__qualname__} returns {len(parts)} {each}s "
                        f"for {n} inputs")
    return parts


def inline_body(rf: ir.Function, sub: Dict[str, ir.Atom], emit, fresh, what: str,
                skip=lambda st: False):
    """Emit a rule's statements (all but its return) with its names substituted by sub,
    each under a fresh name; returns atom(), which maps the rule's atoms the same way."""
    def atom(a):
        if isinstance(a, ir.Var):
            if a.name in sub:
                return sub[a.name]
            raise TransformError(f"{what} reads unknown name {a.name}")
        return a

    for st in rf.body[:-1]:
        if skip(st):
            continue
        v = st.value
        if isinstance(v, ir.Call):
            v = ir.Call(v.callee, tuple(atom(a) for a in v.args),
                        tuple((k, atom(a)) for k, a in v.kwargs))
            hint = hint_for(v.callee, v.args)
        elif isinstance(v, ir.Pack):
            v = ir.Pack(tuple(atom(a) for a in v.items), v.kind)
            hint = "pack"
        elif isinstance(v, ir.Item):
            v = ir.Item(atom(v.value), v.index)
            hint = "item"
        else:
            sub[st.target] = atom(v)
            continue
        sub[st.target] = emit(fresh(hint), v)
    return atom
