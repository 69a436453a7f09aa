"""``python -m s2sad``: the demo, and two commands for looking at generated code.

    python -m s2sad                                    the demo (s2sad/demo.py)
    python -m s2sad show FILE.py:FUNC [options]        print the derivative's generated source
    python -m s2sad export FILE.py:FUNC [options] -o OUT.py
                                                       write it as a module that needs only NumPy

Options shared by ``show`` and ``export``:

    --wrt 0,1 | x,y | all   the arguments to differentiate (default 0; ``all`` is grad_all)
    --order K               nest the transform K times (K > 1 needs one --wrt argument)
    --forward               forward mode: s2sad.derivative(f, wrt=k)
    --spec LETTERS          one letter per positional parameter: d (a differentiable array,
                            the default), n (passed, not differentiable: an int, a flag),
                            c (a tuple/list/dict of arrays), - (not passed: its default)

An export is the generated code plus the source of every s2sad helper it
calls (found by walking the names in each helper against the module that
defines it, transitively), the user's functions and constants that it reads,
and ``import numpy as xp``.  What cannot be copied as source (a global array,
an object) stops the export with its name, unless ``--globals embed`` (copy its
current value) or ``--globals import`` (import it from the user's module) says
otherwise.

Errors (a bad path, a missing function, a file that raises on import, a
function s2sad refuses) print one or two lines on stderr and exit with status 2.
"""

import argparse
import ast
import builtins
import functools
import heapq
import importlib
import importlib.util
import inspect
import math
import os
import symtable
import sys
import textwrap
import traceback
import types

import numpy as np

PROG = "python -m s2sad"


class CLIError(Exception):
    """A problem to report in one or two lines (exit status 2), not as a traceback."""


# -- the command line ---------------------------------------------------------------------

def _order(text):
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--order needs a positive integer, got {text!r}")
    if k < 1:
        raise argparse.ArgumentTypeError(f"--order needs a positive integer, got {k}")
    return k


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Source-to-source automatic differentiation for NumPy. With no "
                    "arguments, runs the demo.",
        epilog="Examples:\n"
               f"  {PROG} show model.py:loss\n"
               f"  {PROG} show model.py:loss --wrt all\n"
               f"  {PROG} show model.py:u --order 2\n"
               f"  {PROG} export model.py:loss --wrt 0,1 -o loss_grad.py",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true",
                   help="show the Python traceback of an unexpected error")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def common(sp):
        sp.add_argument("target", metavar="FILE.py:FUNCTION",
                        help="the function to differentiate: a path, a colon, a function name "
                             "(Class.method and other dotted names work too)")
        sp.add_argument("--wrt", default="0", metavar="ARGS",
                        help="the argument(s) to differentiate with respect to: indices or "
                             "parameter names separated by commas (0,1 or x,y), or 'all' for "
                             "every argument (grad_all). Default: 0")
        sp.add_argument("--order", type=_order, default=1, metavar="K",
                        help="differentiate K times (grad of grad ...); for K > 1, --wrt must "
                             "name one argument. Default: 1")
        sp.add_argument("--forward", action="store_true",
                        help="forward mode: s2sad.derivative(f, wrt=k), a ones tangent on "
                             "argument k (one --wrt argument)")
        sp.add_argument("--spec", metavar="LETTERS",
                        help="the kind of each positional argument, one letter each: d a "
                             "differentiable array or float (the default), n passed but not "
                             "differentiable (an int, a flag, an integer array), c a "
                             "tuple/list/dict of arrays, - not passed (its default is used). "
                             "Missing letters are d. Example: --spec dcn")

    show = sub.add_parser(
        "show", help="print the generated source of a derivative",
        description="Print the source s2sad generates for the derivative of a function "
                    "(what s2sad.source(grad(f)) shows).",
        epilog=f"Example: {PROG} show model.py:loss --wrt 0,1")
    common(show)
    show.add_argument("--all", action="store_true",
                      help="also print the generated functions it calls (the fwd/bwd pairs of "
                           "recursive functions)")
    show.set_defaults(run=_cmd_show)

    export = sub.add_parser(
        "export", help="write the derivative as a standalone module (NumPy only)",
        description="Write the derivative as a Python module that needs only NumPy, not "
                    "s2sad: the generated code, the s2sad helpers it calls, and the "
                    "functions and constants of your file that it reads.",
        epilog=f"Example: {PROG} export model.py:loss --wrt all -o loss_grad.py")
    common(export)
    export.add_argument("-o", "--output", metavar="OUT.py",
                        help="the file to write (default: standard output)")
    export.add_argument("--globals", dest="globals_mode", choices=("error", "embed", "import"),
                        default="error",
                        help="what to do with a value the code reads that is not source or a "
                             "literal (a global array): error (the default) stops and names it; "
                             "embed copies its current value into the module; import imports "
                             "it from your module (which must then be importable)")
    export.set_defaults(run=_cmd_export)

    demo = sub.add_parser("demo", help="run the demo (the same as no arguments)",
                          description="Run the demo: a function, its generated derivative "
                                      "code, and the gradients next to finite differences.")
    demo.set_defaults(run=_cmd_demo)
    return p


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0, or 2 after an error)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        return _cmd_demo(None)
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:          # --help (0) or a usage error (2): argparse printed it
        return e.code if isinstance(e.code, int) else 2
    if args.command is None:
        return _cmd_demo(None)
    try:
        return args.run(args)
    except CLIError as e:
        print(f"{PROG} {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:           # a bug: still no traceback unless asked for
        if args.debug:
            raise
        print(f"{PROG} {args.command}: internal error: {type(e).__name__}: {_first_line(e)}\n"
              f"(run with --debug before the command for the traceback)", file=sys.stderr)
        return 2


def _first_line(e) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""


def _cmd_demo(args) -> int:
    from .demo import main as demo
    demo()
    return 0


def _cmd_show(args) -> int:
    fn, _ = load_target(args.target)
    module = generated_module(build(fn, args), args.spec, fn)
    text = module.source.rstrip("\n") + "\n"
    if args.all:
        for other in _generated_dependencies(module):
            text += "\n\n" + other.source.rstrip("\n") + "\n"
    sys.stdout.write(text)
    return 0


def _cmd_export(args) -> int:
    fn, user = load_target(args.target)
    module = generated_module(build(fn, args), args.spec, fn)
    command = " ".join([PROG, "export"] + _options_text(args))
    text = export_source(module, user, args.target, command, args.output, args.globals_mode)
    if args.output:
        try:
            with open(args.output, "w") as fh:
                fh.write(text)
        except OSError as e:
            raise CLIError(f"cannot write {args.output}: {e.strerror or e}")
        print(f"wrote {args.output}: {_signature(module)}")
    else:
        sys.stdout.write(text)
    return 0


def _options_text(args):
    out = [args.target]
    if args.wrt != "0":
        out += ["--wrt", args.wrt]
    if args.order != 1:
        out += ["--order", str(args.order)]
    if args.forward:
        out.append("--forward")
    if args.spec:
        out += ["--spec", args.spec]
    if getattr(args, "globals_mode", "error") != "error":
        out += ["--globals", args.globals_mode]
    if getattr(args, "output", None):
        out += ["-o", os.path.basename(args.output)]
    return out


# -- loading the user's function ----------------------------------------------------------

def load_target(target: str):
    """(the function, its module) for 'path/to/file.py:name'."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise CLIError(f"expected FILE.py:FUNCTION, got {target!r}")
    module = load_file(path)
    obj = module
    for part in name.split("."):
        if not part.isidentifier() or not hasattr(obj, part):
            names = sorted(k for k, v in vars(module).items() if callable(v) and
                           not isinstance(v, type) and
                           getattr(v, "__module__", None) == module.__name__
                           and not k.startswith("_"))
            have = f" (its functions: {', '.join(names)})" if names else " (it defines no functions)"
            raise CLIError(f"{path} has no function {name!r}{have}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise CLIError(f"{path}:{name} is a {type(obj).__name__}, not a function")
    return obj, module


def _module_name(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem.isidentifier() and stem not in sys.modules:
        return stem
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in stem)
    return f"_s2sad_cli_{base}"


def load_file(path: str):
    """Import a Python file by path (its folder goes first on sys.path)."""
    if not os.path.exists(path):
        raise CLIError(f"no such file: {path}")
    if os.path.isdir(path):
        raise CLIError(f"{path} is a folder; give a Python file: FILE.py:FUNCTION")
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    for module in list(sys.modules.values()):      # loaded already (in-process use)
        f = getattr(module, "__file__", None)
        if isinstance(f, str) and os.path.abspath(f) == full:
            return module
    name = _module_name(full)
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None:
        raise CLIError(f"{path} is not a Python file (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        where = f"{path}:{e.lineno}" if e.lineno else path
        raise CLIError(f"{where}: SyntaxError: {e.msg}") from None
    except (Exception, SystemExit) as e:
        sys.modules.pop(name, None)
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if os.path.abspath(frame.filename) == full:
                line = frame.lineno
        where = f"{path}:{line}" if line else path
        raise CLIError(f"importing {path} failed: {where}: {type(e).__name__}: "
                       f"{_first_line(e)}") from None
    return module


# -- the transform ------------------------------------------------------------------------

def _parse_wrt(text: str, params):
    """None for 'all', an int, or a tuple of ints (indices or parameter names)."""
    text = text.strip()
    if text == "all":
        return None
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            raise CLIError(f"--wrt {text!r}: an empty item")
        try:
            i = int(tok)
        except ValueError:
            if tok not in params:
                raise CLIError(f"--wrt {tok!r}: no parameter of that name "
                               f"(the positional parameters are: {', '.join(params) or 'none'})")
            i = params.index(tok)
        n = len(params)
        if n and not -n <= i < n:
            raise CLIError(f"--wrt {i}: the function has {n} positional parameter"
                           f"{'s' if n != 1 else ''} ({', '.join(params)})")
        out.append(i % n if n else i)
    return out[0] if len(out) == 1 else tuple(out)


def _params(fn):
    from .api import positional_params
    try:
        return positional_params(fn)
    except Exception:
        try:
            return [p.name for p in inspect.signature(fn).parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            return []


def build(fn, args):
    """The s2sad-made function that the options describe (not transformed yet)."""
    import s2sad
    params = _params(fn)
    wrt = _parse_wrt(args.wrt, params)
    if args.spec is not None:
        bad = sorted(set(args.spec) - set("dnc-"))
        if bad:
            raise CLIError(f"--spec {args.spec!r}: unknown letter {bad[0]!r}; use d "
                           "(differentiable), n (not differentiable), c (container), - (not passed)")
        if params and len(args.spec) > len(params):
            raise CLIError(f"--spec {args.spec!r} has {len(args.spec)} letters but "
                           f"{_name(fn)} takes {len(params)} positional parameters")
    if args.order > 1 and not isinstance(wrt, int):
        raise CLIError(f"--order {args.order} differentiates again with respect to the same "
                       f"argument, so --wrt must name one argument (got {args.wrt!r}); "
                       "for a mixed derivative, nest s2sad.grad in Python")
    if args.forward:
        derivative = getattr(s2sad, "derivative", None)
        if derivative is None:
            raise CLIError("--forward needs s2sad.derivative (forward mode), which this "
                           "version of s2sad does not have")
        if not isinstance(wrt, int):
            raise CLIError(f"--forward differentiates with respect to one argument: give "
                           f"--wrt one index or name (got {args.wrt!r})")
        make = functools.partial(derivative, wrt=wrt)
    elif wrt is None:
        make = s2sad.grad_all
    else:
        make = functools.partial(s2sad.grad, wrt=wrt)
    t = fn
    try:
        for _ in range(args.order):
            t = make(t)
    except s2sad.S2SADError as e:
        raise CLIError(_format_s2sad_error(e)) from None
    except TypeError as e:
        raise CLIError(f"{_name(fn)}: {_first_line(e)}") from None
    return t


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _spec(spec, n):
    """The spec s2sad takes (one letter per positional parameter): missing letters are d."""
    if spec is None:
        return None
    return (spec + "d" * n)[:n] if n else spec


def generated_module(t, spec, fn):
    """The codegen Module that s2sad generates for t and a call of the given spec."""
    from .errors import S2SADError
    artifact = getattr(t, "artifact", None)
    if artifact is None:
        raise CLIError(f"{t!r} has no generated code to show")
    try:
        return artifact(_spec(spec, len(_params(fn)))).module
    except S2SADError as e:
        raise CLIError(_format_s2sad_error(e)) from None
    except RecursionError:
        raise CLIError(f"s2sad cannot transform {_name(fn)}: the transform recursed too "
                       "deeply") from None


def _format_s2sad_error(e) -> str:
    """An S2SADError in at most two lines: where and what; the hint's first line."""
    message = getattr(e, "message", None) or str(e)
    location = getattr(e, "location", None)
    head = f"{location}: {message}" if location is not None else message
    head = head.strip().splitlines()[0] if head.strip() else type(e).__name__
    hint = (getattr(e, "hint", "") or "").strip()
    return head + (f"\n{hint.splitlines()[0]}" if hint else "")


def _signature(module) -> str:
    tree = ast.parse(module.source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == module.name:
            return f"{node.name}({ast.unparse(node.args)})"
    return module.name


# -- export -------------------------------------------------------------------------------

def _is_s2sad_name(modname) -> bool:
    return isinstance(modname, str) and (modname == "s2sad" or modname.startswith("s2sad."))


def _is_helper_home(modname) -> bool:
    """Modules whose functions, classes and constants an export may copy: the runtime
    helpers, the rule modules' helpers, and the errors they raise."""
    if not isinstance(modname, str):
        return False
    if modname in ("s2sad.runtime", "s2sad.errors") or modname.startswith("s2sad.rules."):
        return True
    from . import registry          # a helper primitive that lives somewhere else
    return any(getattr(p.fn, "__module__", None) == modname
               for p in registry.all_primitives() if p.printing == registry.HELPER)


def _s2sad_file(modname) -> str:
    return modname.replace(".", "/") + ".py"


def _free_names(source: str):
    """(names the snippet defines at top level, names it reads when it runs at top level
    (decorators, defaults, base classes, class bodies, assigned values), names its functions
    read from globals when they are called)."""
    top = symtable.symtable(source, "<export>", "exec")
    defined = {s.get_name() for s in top.get_symbols()
               if s.is_assigned() or s.is_imported() or s.is_namespace()}
    now = {s.get_name() for s in top.get_symbols() if s.is_referenced()}
    later = set()

    def walk(table, at_definition):
        for child in table.get_children():
            is_class = child.get_type() == "class"
            for s in child.get_symbols():
                if s.is_global() and (s.is_referenced() or s.is_declared_global()):
                    (now if at_definition and is_class else later).add(s.get_name())
            walk(child, at_definition and is_class)
    walk(top, True)
    return defined, now - defined, later - defined


def _literal(v, embed_arrays=False):
    """Source text that rebuilds v (None if it cannot be written as source)."""
    if v is None or type(v) in (bool, int, str, bytes):
        return repr(v)
    if v is Ellipsis:
        return "..."
    if type(v) is float:
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if type(v) is complex:
        return f"complex({_literal(v.real)}, {_literal(v.imag)})"
    if type(v) in (tuple, list, set, frozenset):
        items = [_literal(x, embed_arrays) for x in v]
        if any(i is None for i in items):
            return None
        if type(v) is tuple:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if type(v) is list:
            return "[" + ", ".join(items) + "]"
        if not items:
            return "set()" if type(v) is set else "frozenset()"
        body = "{" + ", ".join(items) + "}"
        return body if type(v) is set else f"frozenset({body})"
    if type(v) is dict:
        parts = []
        for k, x in v.items():
            a, b = _literal(k, embed_arrays), _literal(x, embed_arrays)
            if a is None or b is None:
                return None
            parts.append(f"{a}: {b}")
        return "{" + ", ".join(parts) + "}"
    if isinstance(v, type) and getattr(builtins, v.__name__, None) is v:
        return v.__name__
    if type(v) is slice:
        return f"slice({_literal(v.start)}, {_literal(v.stop)}, {_literal(v.step)})"
    if isinstance(v, np.generic) and type(v).__name__ in dir(np) and v.dtype.kind in "biufc":
        return f"xp.{type(v).__name__}({_literal(v.item())})"
    if isinstance(v, np.dtype):
        return f"xp.dtype({str(v)!r})"
    if embed_arrays and type(v) is np.ndarray and v.dtype.kind in "biufc":
        data = _literal(v.tolist())
        text = f"xp.array({data}, dtype={str(v.dtype)!r})"
        return text if v.size else f"{text}.reshape({v.shape!r})"
    return None


def _import_statement(name, obj):
    """`import m as name` / `from m import q as name` that binds name to obj, or None."""
    if isinstance(obj, types.ModuleType):
        m = obj.__name__
        if m == name:
            return f"import {m}"
        if "." in m and m.rsplit(".", 1)[1] == name:
            return f"from {m.rsplit('.', 1)[0]} import {name}"
        return f"import {m} as {name}"
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    short = getattr(obj, "__name__", None)
    candidates = [(getattr(obj, "__module__", None), qual)]
    candidates += [(m, short) for m in ("numpy", "numpy.linalg", "numpy.fft", "math",
                                        "operator", "builtins")]
    for modname, q in candidates:
        if not isinstance(modname, str) or not isinstance(q, str) or "<" in q or "." in q \
                or _is_s2sad_name(modname):
            continue
        try:
            found = getattr(importlib.import_module(modname), q)
        except Exception:
            continue
        if found is obj:
            if modname == "builtins":
                return f"{name} = {q}"
            return f"from {modname} import {q}" + (f" as {name}" if name != q else "")
    return None


class _Unit:
    """One top-level piece of the exported module."""

    def __init__(self, section, key, text, defines, now=(), doc=None):
        self.section = section      # 0 imports, 1 s2sad helpers, 2 the user's, 3 generated
        self.key = key              # the order within a section
        self.text = text
        self.defines = set(defines)
        self.now = set(now)         # names needed when this piece runs (not when called)
        self.doc = doc              # which file it came from (for the section comments)


class _Exporter:
    def __init__(self, user_module, globals_mode):
        self.user = user_module
        self.globals_mode = globals_mode
        self.bound = {}             # top-level name -> the object it is bound to
        self.units = []
        self.done = set()           # ids of source objects and modules already added
        self.keep = []              # keep those objects alive so ids stay unique
        self.trees = {}
        self.generated = []         # the generated modules, dependencies first
        self.undefined = set()      # names read that are defined nowhere (left as they are)

    # -- names ---------------------------------------------------------------------------
    def claim(self, name, obj, what):
        if name in self.bound:
            old = self.bound[name]
            if old is obj or (_literal(old) is not None and _literal(old) == _literal(obj)
                              and type(old) is type(obj)):
                return False
            raise CLIError(f"cannot export: the name {name!r} would mean two things, "
                           f"{_describe(old)} and {what}; rename one of them")
        self.bound[name] = obj
        return True

    def need(self, name, obj, context):
        """Bind `name` at the top level of the export to obj (and what obj needs)."""
        if name in self.bound and self.bound[name] is obj:
            return
        usermod = getattr(self.user, "__name__", None)
        if name == "xp" and obj is np:
            if self.claim("xp", np, "the array module"):
                self.units.append(_Unit(0, (0, "import numpy as xp", 0), "import numpy as xp",
                                        ["xp"]))
            return
        if isinstance(obj, types.ModuleType):
            if _is_s2sad_name(obj.__name__):
                raise CLIError(f"cannot export: {context} uses the module {obj.__name__}; "
                               "an export cannot depend on s2sad")
            line = _import_statement(name, obj)
            if self.claim(name, obj, f"the module {obj.__name__}"):
                self.units.append(_Unit(0, (1, line, 0), line, [name]))
            return
        generated = getattr(obj, "__s2sad_module__", None)
        if generated is not None and isinstance(obj, types.FunctionType):
            self.add_generated(generated)
            self.alias(name, obj, obj.__name__)
            return
        if isinstance(obj, (types.FunctionType, type, functools._lru_cache_wrapper)):
            home = getattr(obj, "__module__", None)
            if home == "s2sad.errors" and isinstance(obj, type) and \
                    issubclass(obj, Exception):
                self.add_error_class(obj)
                self.alias(name, obj, obj.__name__)
                return
            if _is_s2sad_name(home):
                if not _is_helper_home(home):
                    raise CLIError(f"cannot export: {context} uses {home}.{obj.__qualname__}, "
                                   "which is part of s2sad itself, not a runtime helper")
                self.add_source(obj, sys.modules[home], 1, _s2sad_file(home))
                self.alias(name, obj, obj.__name__)
                return
            if home is not None and (home == usermod or self._users_own(home)):
                module = self.user if home == usermod else sys.modules[home]
                self.add_source(obj, module, 2,
                                os.path.basename(getattr(module, "__file__", "") or home))
                self.alias(name, obj, obj.__name__)
                return
        text = _literal(obj, embed_arrays=self.globals_mode == "embed")
        if text is not None:
            if self.claim(name, obj, f"the constant {text[:40]}"):
                uses_xp = "xp." in text
                self.units.append(_Unit(2, (0, name, 0), f"{name} = {text}", [name],
                                        now={"xp"} if uses_xp else ()))
                if uses_xp:
                    self.need("xp", np, "a constant")
            return
        cls_home = type(obj).__module__
        if _is_s2sad_name(cls_home):
            if _is_helper_home(cls_home):
                self.add_s2sad_constant(name, obj, context)
                return
            raise CLIError(f"cannot export: {context} uses {name!r}, a {type(obj).__name__} "
                           "made by s2sad; an export cannot depend on s2sad")
        if callable(obj) or isinstance(obj, type):
            line = _import_statement(name, obj)
            if line is not None:
                if self.claim(name, obj, repr(line)):
                    self.units.append(_Unit(0, (2, line, 0), line, [name]))
                return
        if self.globals_mode == "import" and usermod is not None and \
                vars(self.user).get(name, _MISSING) is obj:
            if not usermod.isidentifier() or usermod.startswith("_s2sad_cli_"):
                raise CLIError(f"cannot export with --globals import: "
                               f"{os.path.basename(self.user.__file__)} cannot be imported by "
                               "name; rename it to a module name that no other module uses")
            line = f"from {usermod} import {name}"
            if self.claim(name, obj, repr(line)):
                self.units.append(_Unit(0, (3, line, 0), line, [name]))
            return
        kind = f"an array of shape {obj.shape}" if isinstance(obj, np.ndarray) else \
            f"a {type(obj).__name__}"
        hint = "use --globals embed to copy its current value, or --globals import to " \
            "import it from your module" if self.globals_mode == "error" else \
            "use --globals import to import it from your module" \
            if self.globals_mode == "embed" else "it is not a global of your module"
        raise CLIError(f"cannot export: {context} reads {name!r}, {kind}, which cannot be "
                       f"written as source\n{hint}")

    def _users_own(self, modname) -> bool:
        """Whether a module is the user's own code (a file in the folder of the user's
        file, not an installed package): its functions are copied, not imported."""
        module = sys.modules.get(modname)
        f = getattr(module, "__file__", None)
        top = os.path.dirname(os.path.abspath(getattr(self.user, "__file__", "") or ""))
        if not isinstance(f, str) or not top or top == os.path.dirname(top):
            return False
        f = os.path.abspath(f)
        parts = set(f.split(os.sep))
        return f.startswith(top + os.sep) and not parts & {"site-packages", "dist-packages"}

    def alias(self, name, obj, own_name):
        if name != own_name:
            if self.claim(name, obj, f"{own_name}"):
                self.units.append(_Unit(2, (2, name, 0), f"{name} = {own_name}", [name],
                                        now={own_name}))

    # -- source ----------------------------------------------------------------------------
    def _tree(self, module):
        tree = self.trees.get(module.__name__)
        if tree is None:
            tree = self.trees[module.__name__] = ast.parse(inspect.getsource(module))
        return tree

    def add_source(self, obj, home, section, doc):
        """A function or class, copied from its source, and what it reads."""
        if id(obj) in self.done:
            return
        self.done.add(id(obj))
        self.keep.append(obj)
        name = obj.__name__
        what = f"{doc}:{name}"
        if not name.isidentifier():
            raise CLIError(f"cannot export: the code calls a {name} from {doc}; an export "
                           "copies functions by their def: define it with def")
        self.claim(name, obj, f"the function {name} from {doc}")
        try:
            text = textwrap.dedent(inspect.getsource(obj))
            line = inspect.getsourcelines(obj)[1]
        except (OSError, TypeError):
            raise CLIError(f"cannot export: the source of {name} ({doc}) is not available")
        raw = inspect.unwrap(obj)
        if getattr(raw, "__closure__", None):
            raise CLIError(f"cannot export: {name} ({doc}) is a closure (it reads variables "
                           f"of the function that made it: "
                           f"{', '.join(raw.__code__.co_freevars)}); an export copies source only")
        namespace = getattr(raw, "__globals__", None) or vars(home)
        text = _without_s2sad_decorators(text, namespace)
        text, local_imports = self._patch_imports(text, home, what)
        defined, now, later = _free_names(text)
        unit = _Unit(section, (1, home.__name__, line), text, defined, now, doc)
        self.units.append(unit)
        for n, o in local_imports:
            self.need(n, o, what)
        self.resolve(now | later, namespace, what, defined)

    def add_error_class(self, cls):
        """s2sad's errors, as short stand-ins: the message is all an export needs."""
        if id(cls) in self.done:
            return
        self.done.add(id(cls))
        self.keep.append(cls)
        base = cls.__bases__[0]
        if base is Exception:
            text = (f"class {cls.__name__}(Exception):\n"
                    f'    """The error that s2sad helpers raise (a stand-in for '
                    f's2sad.errors.{cls.__name__})."""\n\n'
                    "    def __init__(self, message, location=None, hint=\"\"):\n"
                    "        super().__init__(message + (\"\\n\" + hint if hint else \"\"))\n")
        else:
            self.need(base.__name__, base, f"s2sad.errors.{cls.__name__}")
            text = (f"class {cls.__name__}({base.__name__}):\n"
                    f'    """A stand-in for s2sad.errors.{cls.__name__}."""\n')
        self.claim(cls.__name__, cls, f"the class {cls.__name__}")
        self.units.append(_Unit(1, (0, cls.__name__, 0), text, [cls.__name__],
                                {base.__name__} - {"Exception"}, "s2sad/errors.py"))

    def add_s2sad_constant(self, name, obj, context, fallback=False):
        """A module constant of s2sad's runtime (EMPTY_TAPE = Tape()): its assignment."""
        homes = [m for k, m in sorted(sys.modules.items()) if m is not None and
                 _is_helper_home(k) and vars(m).get(name, _MISSING) is obj]
        for home in homes:
            for node in self._tree(home).body:
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign) else []
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    if not self.claim(name, obj, f"s2sad's constant {name}"):
                        return
                    text = ast.get_source_segment(inspect.getsource(home), node)
                    doc = _s2sad_file(home.__name__)
                    defined, now, later = _free_names(text)
                    self.units.append(_Unit(1, (1, home.__name__, node.lineno), text, defined,
                                            now | later, doc))
                    self.resolve(now | later, vars(home), f"{doc}:{name}", defined)
                    return
        if fallback:
            self.need(name, obj, context)
            return
        raise CLIError(f"cannot export: {context} uses {name!r}, a {type(obj).__name__} "
                       "from s2sad that is not defined by an assignment")

    def _patch_imports(self, text, home, what):
        """Imports from s2sad inside a helper (`from .errors import S2SADError`): the
        names become top-level definitions of the export; the statement becomes `pass`."""
        tree = ast.parse(text)
        lines = text.splitlines(True)
        found = []
        edits = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(_is_s2sad_name(a.name) for a in node.names):
                raise CLIError(f"cannot export: {what} imports s2sad")
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 0 and not _is_s2sad_name(node.module):
                continue
            if node.level and home.__package__ is None:
                continue
            modname = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                                  home.__package__) if node.level else node.module
            if not _is_s2sad_name(modname):
                continue
            source_mod = importlib.import_module(modname)
            repl = []
            for a in node.names:
                if a.name == "*" or not hasattr(source_mod, a.name):
                    raise CLIError(f"cannot export: {what} imports {a.name} from {modname}")
                found.append((a.name, getattr(source_mod, a.name)))
                if a.asname and a.asname != a.name:
                    repl.append(f"{a.asname} = {a.name}")
            edits.append((node.lineno, node.end_lineno, "; ".join(repl) or "pass",
                          f"  # was: {lines[node.lineno - 1].strip()}"))
        for start, end, repl, note in sorted(edits, reverse=True):
            indent = lines[start - 1][:len(lines[start - 1]) - len(lines[start - 1].lstrip())]
            lines[start - 1:end] = [f"{indent}{repl}{note if end == start else ''}\n"]
        return "".join(lines), found

    def resolve(self, names, namespace, what, defined=()):
        for n in sorted(names):
            if n in defined:
                continue
            if n in namespace:
                value = namespace[n]
                if _is_helper_home(namespace.get("__name__")) and not isinstance(
                        value, (types.ModuleType, types.FunctionType, type,
                                functools._lru_cache_wrapper)) and n not in self.bound:
                    self.add_s2sad_constant(n, value, what, fallback=True)
                else:
                    self.need(n, value, what)
            elif not hasattr(builtins, n):
                self.undefined.add(n)       # a NameError when it runs, as in s2sad

    # -- generated code ------------------------------------------------------------------
    def add_generated(self, module):
        if id(module) in self.done:
            return
        self.done.add(id(module))
        self.keep.append(module)
        text = _without_binding_notes(module.source)
        defined, now, later = _free_names(text)
        for n in sorted(defined):
            fn = (module.built.get("numpy") or {}).get(n)
            self.claim(n, fn if fn is not None else ("generated", id(module), n),
                       f"the generated function {n}")
        what = f"the generated {module.name}"
        for n in sorted((now | later) - defined):
            if n == "xp":
                self.need("xp", np, what)
            elif n in module.bindings:
                self.need(n, module.bindings[n], what)
            elif n in module.cells:
                try:
                    value = module.cells[n].cell_contents
                except ValueError:
                    raise CLIError(f"cannot export: {what} reads {n!r}, a variable of the "
                                   "enclosing function that has no value")
                self.need(n, value, what)
            else:
                self.resolve({n}, module.globals, what)
        self.generated.append(module)
        self.units.append(_Unit(3, (len(self.generated), "", 0), text, defined, now))

    # -- the module ----------------------------------------------------------------------
    def ordered(self):
        """The units: by section and position, each after what it needs at definition."""
        by_name = {}
        for i, u in enumerate(self.units):
            for n in u.defines:
                by_name.setdefault(n, i)
        waits = {i: {by_name[n] for n in u.now if n in by_name and by_name[n] != i}
                 for i, u in enumerate(self.units)}
        users = {i: [] for i in waits}
        for i, w in waits.items():
            for j in w:
                users[j].append(i)
        heap = [(self.units[i].section, self.units[i].key, i) for i, w in waits.items() if not w]
        heapq.heapify(heap)
        out = []
        while heap:
            _, _, i = heapq.heappop(heap)
            out.append(self.units[i])
            for j in users[i]:
                waits[j].discard(i)
                if not waits[j]:
                    heapq.heappush(heap, (self.units[j].section, self.units[j].key, j))
        if len(out) != len(self.units):       # a cycle at definition time: keep the order
            rest = [u for u in self.units if u not in out]
            out += sorted(rest, key=lambda u: (u.section, u.key))
        return out


_MISSING = object()


def _describe(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return f"the module {obj.__name__}"
    if isinstance(obj, tuple) and obj and obj[0] == "generated":
        return f"the generated function {obj[2]}"
    name = getattr(obj, "__qualname__", None)
    mod = getattr(obj, "__module__", None)
    if name and mod:
        return f"{mod}.{name}"
    return f"a {type(obj).__name__}"


def _without_s2sad_decorators(text: str, namespace) -> str:
    """A function's source without decorators from s2sad (which register a function and
    return it unchanged, such as @s2sad.defnondiff): an export has no registry."""
    tree = ast.parse(text)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or not node.decorator_list:
        return text
    lines = text.splitlines(True)
    drop = set()
    for d in node.decorator_list:
        root = d.func if isinstance(d, ast.Call) else d
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            continue
        obj = namespace.get(root.id)
        home = obj.__name__ if isinstance(obj, types.ModuleType) else \
            getattr(obj, "__module__", None)
        if _is_s2sad_name(home):
            drop.update(range(d.lineno - 1, d.end_lineno))
    return "".join(ln for i, ln in enumerate(lines) if i not in drop)


def _without_binding_notes(source: str) -> str:
    """A generated module without the two comment lines about names bound at run time
    (in an export, xp is NumPy and the helpers are defined above)."""
    keep = [ln for ln in source.splitlines(True)
            if not ln.startswith("# xp is the array module") and
            not ln.startswith("# Also bound: ")]
    return "".join(keep)


def _generated_dependencies(module):
    """The generated modules that module's code calls, transitively (for show --all)."""
    seen, out = {id(module)}, []

    def visit(m):
        for v in list(m.bindings.values()):
            g = getattr(v, "__s2sad_module__", None)
            if g is not None and id(g) not in seen:
                seen.add(id(g))
                visit(g)
                out.append(g)
    visit(module)
    return out


_SECTION_TITLES = {
    1: "s2sad helpers that the code calls\n# copied from {}",
    2: "what the code reads from {}",
    3: "the code s2sad generated",
}


def export_source(module, user_module, target, command, output, globals_mode="error") -> str:
    """The text of a standalone module computing what `module`'s function computes."""
    ex = _Exporter(user_module, globals_mode)
    ex.need("xp", np, "the generated code")
    ex.add_generated(module)
    units = ex.ordered()
    out = ""
    prev = None
    for u in units:
        text = u.text.strip("\n")
        if prev is None or u.section != prev.section:
            if u.section in _SECTION_TITLES:
                docs = sorted({x.doc for x in units if x.section == u.section and x.doc})
                if u.section == 2:
                    mine = os.path.basename(getattr(user_module, "__file__", None) or target)
                    docs = [mine] + sorted(set(docs) - {mine})
                title, _, more = _SECTION_TITLES[u.section].format(", ".join(docs)).partition("\n")
                out += f"\n\n\n# ---- {title} " + "-" * max(4, 80 - len(title) - 7)
                out += (f"\n{more}" if more else "") + "\n\n"
            elif out:
                out += "\n\n"
        elif "\n" in text or "\n" in prev.text.strip("\n"):
            out += "\n\n\n"
        else:
            out += "\n"
        out += text
        prev = u
    signature = _signature(module)
    first = module.source.splitlines()[0].lstrip("# ").strip()
    name = os.path.splitext(os.path.basename(output))[0] if output else "MODULE"
    head = [
        f"# {os.path.basename(output) if output else 'This module'}: exported by s2sad "
        f"{_version()} from {target}",
        f"#   {command}",
        f"# {first}",
        "#",
        "# Standalone: it needs NumPy only (not s2sad). Call it as you would call the function:",
        f"#   from {name} import {module.name}",
        f"#   {signature}",
        "# It returns what the generated code returns; s2sad's own wrapper also gives each",
        "# gradient its argument's type (a Python float for a float, float32 for float32).",
        "",
    ]
    text = "\n".join(head) + "\n" + out.strip("\n") + f"\n\n\n__all__ = [{module.name!r}]\n"
    _check_export(text, ex)
    return text


def _version() -> str:
    from . import __version__
    return __version__


def _check_export(text, ex):
    """The export must parse, and every name its code reads must be defined in it."""
    try:
        compile(text, "<export>", "exec")
    except SyntaxError as e:
        raise CLIError(f"internal error: the export does not compile: line {e.lineno}: {e.msg}")
    defined, now, later = _free_names(text)
    missing = sorted((now | later) - defined - ex.undefined - set(dir(builtins)))
    if missing:
        raise CLIError(f"internal error: the export reads {', '.join(missing)} but does not "
                       "define it")

