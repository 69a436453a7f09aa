"""Pass 3a (run by resolve_values): np.piecewise(x, condlist, funclist) rewritten into the
statements NumPy runs, so that each piece's own code is differentiated where it applies::

    y = np.piecewise(x, [x < 0, x > 1], [f, g, 0.5])   =>   piecewise_x = x
                                                            piecewise = np.zeros_like(piecewise_x)
                                                            piecewise_c = x < 0
                                                            piecewise[piecewise_c] = f(piecewise_x[piecewise_c])
                                                            piecewise_c_1 = x > 1
                                                            piecewise[piecewise_c_1] = g(...)
                                                            piecewise_rest = not (c or c_1)
                                                            piecewise[piecewise_rest] = 0.5
                                                            y = piecewise

A piece is a function (a lambda, a function known by name), called on the entries its
condition selects with the call's extra arguments, or a value; with one piece more than
conditions, the last applies where none holds; a later condition overrides an earlier
one, as in NumPy.  The lists must be written in the call (their length is the code's).
"""

import gast
import numpy as np

_LISTS = (gast.List, gast.Tuple)


def _name(id_, store=False):
    return gast.Name(id_, gast.Store() if store else gast.Load(), None, None)


def _at(new, old):
    return gast.fix_missing_locations(gast.copy_location(new, old))


def _assign(target, value, where):
    return _at(gast.Assign([target], value, None), where)


def _parts(rw, node):
    """(x, conditions, pieces, extra args, keywords) of the call, or a refusal."""
    given = list(node.args)
    kws = {k.arg: k.value for k in node.keywords if k.arg in ("condlist", "funclist")}
    rest = [k for k in node.keywords if k.arg not in ("condlist", "funclist")]
    x = given.pop(0) if given else None
    conds = given.pop(0) if given else kws.get("condlist")
    funcs = given.pop(0) if given else kws.get("funclist")
    if x is None or not isinstance(conds, _LISTS) or not isinstance(funcs, _LISTS) or \
            len(funcs.elts) not in (len(conds.elts), len(conds.elts) + 1) or \
            any(k.arg is None for k in rest) or any(isinstance(a, gast.Starred) for a in given):
        rw.fail(node, "this call of np.piecewise",
                "s2sad differentiates np.piecewise(x, [c0, c1, ...], [f0, f1, ...]) with "
                "the lists of conditions and pieces written in the call (one piece more "
                "for where no condition holds), and extra arguments written out.")
    return x, conds.elts, funcs.elts, given, rest


def _callable(rw, piece, scope) -> bool:
    if isinstance(piece, gast.Lambda):
        return True
    ok, value = rw.static(piece, scope)
    return ok and callable(value)


def rewrite(rw, node, scope, pre):
    """The name holding np.piecewise(...)'s value, its statements appended to pre."""
    if pre is None:
        rw.fail(node, "np.piecewise in an expression that is computed more than once "
                "(a lambda's body, a loop's test)", "Assign it first: y = np.piecewise(...).")
    x, conds, pieces, extra, kws = _parts(rw, node)

    def hold(expr, hint):
        name = rw.fresh(hint)
        pre.append(_assign(_name(name, True), rw.expr(expr, scope, pre), node))
        return name

    xs = hold(x, "piecewise_x")
    out = rw.fresh("piecewise")
    zeros = _name(rw.cell(np.zeros_like, "zeros_like"))
    pre.append(_assign(_name(out, True), gast.Call(zeros, [_name(xs)], []), node))
    masks = [hold(c, "piecewise_c") for c in conds]
    if len(pieces) > len(conds):        # the last piece: where no condition holds
        either = _name(masks[0]) if masks else gast.Call(
            _name(rw.cell(np.zeros_like, "zeros_like")), [_name(xs)],
            [gast.keyword("dtype", _name(rw.cell(bool, "bool")))])
        for m in masks[1:]:
            either = gast.Call(_name(rw.cell(np.logical_or, "logical_or")),
                               [either, _name(m)], [])
        masks.append(hold(gast.Call(_name(rw.cell(np.logical_not, "logical_not")),
                                    [either], []), "piecewise_rest"))
    args = [hold(a, "piecewise_arg") for a in extra]
    kw = [(k.arg, hold(k.value, f"piecewise_{k.arg}")) for k in kws]
    for mask, piece in zip(masks, pieces):
        if _callable(rw, piece, scope):
            f = hold(piece, "piecewise_f")
            sub = gast.Subscript(_name(xs), _name(mask), gast.Load())
            value = gast.Call(_name(f), [sub] + [_name(a) for a in args],
                              [gast.keyword(k, _name(v)) for k, v in kw])
        else:
            value = rw.expr(piece, scope, pre)
        target = gast.Subscript(_name(out), _name(mask), gast.Store())
        pre.append(_assign(target, value, node))
    return _at(_name(out), node)
