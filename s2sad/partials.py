"""A functools.partial of a user's function, written as the function it stands for.

``grad(functools.partial(loss, X=X, y=y))(w)`` is how JAX and SciPy users fix the data
of an objective.  A partial object has no source to read, so s2sad writes the function
it calls as source, with the signature Python gives the partial (inspect.signature) and
the values it fixes as constants of that function::

    functools.partial(loss, X, reg=0.5)  =>  def loss(y, w, *, reg=reg):     (X fixed)
    (loss(X, y, w, reg=0.1))                     return loss_fn(X, y, w, reg=reg)

where ``X`` and ``loss_fn`` are globals of the written function holding the partial's
own objects, and the default of ``reg`` is the partial's 0.5 (a call may still pass
another, as it may to the partial).  The source is kept in linecache under a name that
says what it is.  Written only where every fixed keyword names a parameter of the
signature; None otherwise (the partial is then what it was: a callable without source).
"""

import functools
import inspect
import keyword
import linecache
import weakref

_written = weakref.WeakKeyDictionary()      # partial -> its function, or None
_count = [0]


def written(p: functools.partial):
    """The Python function that p stands for, written as source; None where p has none."""
    try:
        return _written[p]
    except KeyError:
        pass
    except TypeError:                       # not weakly referenceable: write it each time
        return _write(p)
    made = _write(p)
    _written[p] = made
    return made


def _write(p):
    try:
        sig = inspect.signature(p)
        inner = inspect.signature(p.func)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(k not in sig.parameters for k in p.keywords):
        return None                         # a keyword only **kwargs takes
    fixed = _fixed_names(p, inner, params)
    taken = {q.name for q in params} | set(fixed)
    name = getattr(p.func, "__name__", "fn")
    name = name if name.isidentifier() and not keyword.iskeyword(name) else "fn"
    fn_name = name if name not in taken else _fresh(name + "_fn", taken | {name})
    env = {fn_name: p.func, **dict(zip(fixed, p.args))}
    env.update({q.name: q.default for q in params if q.default is not q.empty})
    head, call = [], list(fixed)
    for q in params:
        head.append(_declared(q))
        call.append(_passed(q))
    head = _with_markers(params, head)
    text = (f"def {name}({', '.join(head)}):\n"
            f"    return {fn_name}({', '.join(call)})\n")
    _count[0] += 1
    code = getattr(getattr(p.func, "__func__", p.func), "__code__", None)
    where = f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code else ""
    filename = f"<functools.partial of {getattr(p.func, '__qualname__', name)}{where} " \
               f"#{_count[0]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    held = dict(env)
    exec(compile(text, filename, "exec"), env)
    made = env[name]
    env.update(held)                        # the def bound its name: what the body reads
    made.__qualname__ = getattr(p.func, "__qualname__", name)
    made.__doc__ = getattr(p.func, "__doc__", None)
    made.__module__ = getattr(p.func, "__module__", None)
    return made


def _fixed_names(p, inner, params):
    """Names for the partial's fixed positional arguments: the parameters they fill
    (``X``), ``arg2`` for one *args takes, made fresh against the signature's."""
    leading = [q for q in inner.parameters.values()
               if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
    taken = {q.name for q in params}
    names = []
    for i in range(len(p.args)):
        base = leading[i].name if i < len(leading) else f"arg{i}"
        names.append(_fresh(base, taken))
        taken.add(names[-1])
    return names


def _fresh(base, taken):
    name, k = base, 1
    while name in taken or keyword.iskeyword(name):
        name, k = f"{base}_{k}", k + 1
    return name


def _declared(q):
    """A parameter as the written def declares it (its default read from the global of
    the same name)."""
    star = {q.VAR_POSITIONAL: "*", q.VAR_KEYWORD: "**"}.get(q.kind, "")
    default = "" if q.default is q.empty else f"={q.name}"
    return f"{star}{q.name}{default}"


def _passed(q):
    if q.kind == q.VAR_POSITIONAL:
        return f"*{q.name}"
    if q.kind == q.VAR_KEYWORD:
        return f"**{q.name}"
    if q.kind == q.KEYWORD_ONLY:
        return f"{q.name}={q.name}"
    return q.name


def _with_markers(params, head):
    """head with `/` after the positional-only parameters and `*` before the keyword-only
    ones where no *args stands there."""
    out = []
    kinds = [q.kind for q in params]
    for i, (q, text) in enumerate(zip(params, head)):
        if q.kind == q.KEYWORD_ONLY and q.VAR_POSITIONAL not in kinds and \
                (i == 0 or kinds[i - 1] != q.KEYWORD_ONLY):
            out.append("*")
        out.append(text)
        if q.kind == q.POSITIONAL_ONLY and (i + 1 == len(params) or
                                            kinds[i + 1] != q.POSITIONAL_ONLY):
            out.append("/")
    return out
