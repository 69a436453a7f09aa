"""einsum, in both forms, and the helpers that keep its derivatives einsums.

The gradient of an einsum with respect to operand i is another
einsum of ``dout`` with the other operands, ``einsum_skip(einsum_grad_spec(i,
*args), dout, *other_args)``, followed by ``einsum_expand``, which puts the
result back in operand i's shape: it broadcasts along indices that only
operand i has (summed away by the forward pass), and places values on the
diagonal for an index repeated within operand i (``'ii->i'``).
``einsum_expand`` is linear; its adjoint is an einsum again (``'iik->ik'``:
take the diagonal, sum).  So every derivative of an einsum, to any order, is
made of einsums and ``einsum_expand``.  The subscripts strings are computed at
run time from the operands' shapes by non-differentiable helpers, and cached.
Both forms of einsum are differentiated, ``einsum('ij,jk', a, b)`` and the
sublist form ``einsum(a, [0, 1], b, [1, 2])``: a rule knows only how many
arguments a call has, not which are operands, so the gradient einsum takes all
the other arguments and ``einsum_skip`` leaves out those that are not operands
(their term in its subscripts is '#').
"""

import functools
import string

import numpy as np

from ...errors import S2SADError
from ...registry import defbprop, defbprop_varargs, defview
from ...runtime import array_namespace, unbroadcast

# ---------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------

LABELS = string.ascii_letters


def _einsum_fail(subscripts, why):
    raise S2SADError(f"cannot differentiate np.einsum({_shown(subscripts)!r}, ...): {why}")


def _shown(subscripts):
    """The subscripts as the user wrote them: without the '#' terms that stand here for
    the arguments that are not operands (the subscripts string itself, sublists)."""
    if not isinstance(subscripts, str) or "#" not in subscripts:
        return subscripts
    lhs, arrow, rhs = subscripts.partition("->")
    return ",".join(t for t in lhs.split(",") if t != "#") + arrow + rhs


def _sublist_term(sub):
    """A sublist of einsum's interleaved form as a term: [0, 1] -> 'AB', [Ellipsis, 27] -> '...b'
    (NumPy's letters: 0-25 are 'A'-'Z', 26-51 'a'-'z')."""
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
            continue
        k = int(s)
        if k != s or not 0 <= k < 52:
            _einsum_fail(sub, f"a sublist label must be an integer in [0, 52), got {s!r}")
        out.append(chr(ord("A") + k) if k < 26 else chr(ord("a") + k - 26))
    return "".join(out)


def _einsum_layout(args):
    """(subscripts, shapes) for the arguments of an einsum call, in either of its forms.

    The subscripts have one term per argument, '#' for an argument that is not an
    operand (the subscripts string itself, a sublist); shapes has the shape of each
    operand and None elsewhere.  np.einsum('ij,jk->ik', a, b) gives '#,ij,jk->ik';
    np.einsum(a, [0, 1], b, [1, 2], [0, 2]) gives 'AB,#,BC,#,#->AC'.
    """
    a0 = args[0]
    if isinstance(a0, str):
        subscripts = "#," + a0.replace(" ", "")
    else:
        # the interleaved form: operand, sublist, operand, sublist, ..., [output sublist]
        n = len(args)
        terms = []
        for k in range(0, n - 1, 2):
            terms += [_sublist_term(args[k + 1]), "#"]
        if n % 2:
            subscripts = ",".join(terms + ["#"]) + "->" + _sublist_term(args[-1])
        else:
            subscripts = ",".join(terms)
    lhs = subscripts.partition("->")[0].split(",")
    shapes = tuple(None if t == "#" else tuple(np.shape(a)) for t, a in zip(lhs, args))
    if len(lhs) != len(args):
        _einsum_fail(a0, f"{len(lhs) - 1} terms for {len(args) - 1} operands")
    return subscripts, shapes


@functools.lru_cache(maxsize=1024)
def _einsum_terms(subscripts, shapes):
    """(terms, output term, {label: size}, unused labels) with '...' written out as labels.

    One term per argument, '#' for an argument that is not an operand (its shape is
    None).  Ellipsis dimensions get fresh labels, right-aligned across operands as
    NumPy broadcasts them; an implicit output is NumPy's: the broadcast dimensions,
    then the labels that occur once, in ASCII order.
    """
    s = subscripts.replace(" ", "")
    lhs, arrow, rhs = s.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        _einsum_fail(subscripts, f"{len(terms)} terms for {len(shapes)} operands")
    for t in terms + [rhs]:
        if t != "#" and t.replace("...", "", 1).strip(LABELS):
            _einsum_fail(subscripts, f"bad term {t!r}")
    used = set(s) - {".", ",", "-", ">", "#"}
    fresh = [c for c in LABELS if c not in used]
    ops = [(t, shp) for t, shp in zip(terms, shapes) if t != "#"]
    ell = 0
    for t, shp in ops:
        if "..." in t:
            ell = max(ell, len(shp) - (len(t) - 3))
    if ell > len(fresh):
        _einsum_fail(subscripts, "too many dimensions")
    E, fresh = "".join(fresh[:ell]), fresh[ell:]
    full = []
    for t, shp in zip(terms, shapes):
        if t == "#":
            full.append(t)
            continue
        if "..." in t:
            k = len(shp) - (len(t) - 3)
            t = t.replace("...", E[ell - k:] if k else "")
        if len(t) != len(shp):
            _einsum_fail(subscripts, f"term {t!r} does not match an operand of shape {shp}")
        full.append(t)
    if arrow:
        out = rhs.replace("...", E)
    else:
        counts = {}
        for t, _ in ops:
            for c in t.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out = E + "".join(sorted(c for c, n in counts.items() if n == 1))
    sizes = {}
    for t, shp in zip(full, shapes):
        if t != "#":
            for c, n in zip(t, shp):
                sizes[c] = max(sizes.get(c, 1), n)
    return tuple(full), out, sizes, "".join(fresh)


@functools.lru_cache(maxsize=1024)
def _einsum_grad_specs(subscripts, i, shapes):
    """(spec of the einsum_skip that gives argument i's gradient, spec of einsum_expand)."""
    terms, out, sizes, fresh = _einsum_terms(subscripts, shapes)
    if terms[i] == "#":
        _einsum_fail(subscripts, "a derivative with respect to an argument that is not an "
                     "operand (the subscripts or a sublist) was asked for")
    # a size-1 dimension of operand i broadcast against a larger one: a label of its own,
    # which only operand i has (the gradient sums over it)
    ti = []
    fresh = list(fresh)
    for c, n in zip(terms[i], shapes[i]):
        if n == 1 and sizes[c] != 1:
            if not fresh:
                _einsum_fail(subscripts, "too many dimensions")
            c = fresh.pop(0)
        ti.append(c)
    ti = "".join(ti)
    elsewhere = set(out).union(*[t for j, t in enumerate(terms) if j != i and t != "#"])
    kept = "".join(c for k, c in enumerate(ti) if c in elsewhere and c not in ti[:k])
    grad = ",".join([out] + [t for j, t in enumerate(terms) if j != i]) + "->" + kept
    return grad, kept + "->" + ti


def einsum_grad_spec(i, *args):
    """The subscripts of einsum_skip(spec, dout, *args without args[i]) that gives the
    gradient of np.einsum(*args) (either form) with respect to its argument i, an operand.

    Its result is indexed by operand i's labels that occur elsewhere, once each;
    einsum_expand takes it to operand i's shape.
    """
    subscripts, shapes = _einsum_layout(args)
    return _einsum_grad_specs(subscripts, i, shapes)[0]


def einsum_expand_spec(i, *args):
    """'kept->term': how einsum_expand takes the gradient einsum to operand i's shape."""
    subscripts, shapes = _einsum_layout(args)
    return _einsum_grad_specs(subscripts, i, shapes)[1]


@functools.lru_cache(maxsize=1024)
def _skip_spec(spec):
    lhs, _, rhs = spec.partition("->")
    terms = lhs.split(",")
    keep = tuple(k for k, t in enumerate(terms) if t != "#")
    return ",".join(terms[k] for k in keep) + "->" + rhs, keep


def einsum_skip(spec, *args):
    """np.einsum(spec, *args) with the arguments whose term in spec is '#' left out.

    The gradients of an einsum are einsums of dout with all the other arguments of the
    call; in the sublist form some of those are sublists, and '#' skips them, so one rule
    serves both forms: einsum_skip('ik,#,jk->ij', g, 'ij,jk->ik', b) is
    np.einsum('ik,jk->ij', g, b).
    """
    subscripts, keep = _skip_spec(spec)
    ops = [args[k] for k in keep]
    return array_namespace(*ops).einsum(subscripts, *ops)


def einsum_flip(spec):
    """'a->b' reversed: 'b->a' (the adjoint of einsum_expand is this einsum)."""
    src, _, dst = spec.partition("->")
    return dst + "->" + src


def einsum_expand(g, x, spec):
    """g, indexed by the labels left of '->', as an array shaped like x indexed by the right.

    Labels only on the right are broadcast to x's size; a label repeated on
    the right puts g on that diagonal (zero off it).  Linear in g.
    """
    src, _, dst = spec.partition("->")
    shape = np.shape(x)
    if src == dst and np.shape(g) == shape:
        return g
    xp = array_namespace(g, x)
    g = xp.asarray(g)
    first = {}
    for p, c in enumerate(dst):
        first.setdefault(c, p)
    order = sorted(src, key=lambda c: first[c])
    if order != list(src):
        g = xp.transpose(g, [src.index(c) for c in order])
    # g's size along a label is x's, or 1 where an operand of size 1 was broadcast
    size = dict(zip(order, g.shape))
    g = xp.reshape(g, tuple(size[c] if first[c] == p and c in size else 1
                            for p, c in enumerate(dst)))
    g = xp.broadcast_to(g, shape)
    for q, c in enumerate(dst):
        p = first[c]
        if p != q:
            n = shape[p]
            eye = xp.eye(n, dtype=g.dtype)
            g = g * xp.reshape(eye, tuple(n if k in (p, q) else 1 for k in range(len(dst))))
    return g


@defbprop(einsum_expand)
def bprop_einsum_expand(g, x, spec, out, dout):
    # the adjoint of broadcasting and of putting on a diagonal: summing, taking the diagonal
    return (unbroadcast(np.einsum(einsum_flip(spec), dout), g), None, None)


def _einsum_rule(name):
    """The rule factory of np.einsum and einsum_skip: for a call with n arguments, in
    either form of einsum, the gradient of argument k is einsum_skip of dout and the
    other arguments, put in k's shape by einsum_expand.  Where argument k is not an
    operand (the subscripts, a sublist) it is a constant, and that code is never run."""
    def factory(n):
        args = [f"a{k}" for k in range(n)]
        allargs = ", ".join(args)
        lines = [f"def bprop_{name}_{n}({allargs}, out, dout):"]
        grads = []
        for k in range(n):
            others = ", ".join(["dout"] + [a for j, a in enumerate(args) if j != k])
            lines.append(f"    g{k} = einsum_skip(einsum_grad_spec({k}, {allargs}), {others})")
            grads.append(f"einsum_expand(g{k}, a{k}, einsum_expand_spec({k}, {allargs}))")
        lines.append(f"    return ({', '.join(grads)},)")
        text = "\n".join(lines) + "\n"
        return text, {"np": np, "einsum_skip": einsum_skip, "einsum_grad_spec": einsum_grad_spec,
                      "einsum_expand_spec": einsum_expand_spec, "einsum_expand": einsum_expand}
    return factory


defbprop_varargs(np.einsum)(_einsum_rule("einsum"))
# np.einsum("ii->i", a) and np.einsum("ij->ji", a) are views of their operand
defview(np.einsum, args=None)
defbprop_varargs(einsum_skip)(_einsum_rule("einsum_skip"))
