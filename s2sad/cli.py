"""``python -m s2sad``: the demo, and two commands for looking at generated code.

    python -m s2sad                                    the demo (s2sad/demo.py)
    python -m s2sad demo                               the same
    python -m s2sad --version                          the installed version
    python -m s2sad show FILE.py:FUNC [options]        print the derivative's generated source
    python -m s2sad export FILE.py:FUNC [options] -o OUT.py
                                                       write it as a module that needs only NumPy

After ``pip install``, the ``s2sad`` command is the same as ``python -m s2sad``
(the console script in setup.cfg calls :func:`main`).

Options shared by ``show`` and ``export``:

    --wrt 0,1 | x,y | all   the arguments to differentiate (default 0; ``all`` is grad_all)
    --order K               nest the transform K times (K > 1 needs one --wrt argument)
    --forward               forward mode: s2sad.derivative(f, wrt=k)
    --spec LETTERS          one letter per positional parameter: d (a differentiable array,
                            the default), n (passed, not differentiable: an int, a flag),
                            c (a tuple/list of arrays), k (a dict of arrays), m (a dict
                            of other values), - (not passed: its default)

``export`` writes what s2sad/export.py makes: the generated code, the s2sad
helpers it calls and the user's functions and constants it reads, as source.
What cannot be copied as source (a global array, an object) stops the export
with its name, unless ``--globals embed`` (copy its current value) or
``--globals import`` (import it from the user's module) says otherwise.

This module parses the options, loads the target file, asks s2sad for the
derivative (s2sad.grad, grad_all, derivative) and its generated module, and
prints; the exporter does the rest.

Errors (a bad path, a missing function, a file that raises on import, a
function s2sad refuses) print one or two lines on stderr and exit with status 2.
"""


import argparse
import functools
import importlib.util
import inspect
import os
import sys
import traceback

from .ir.spec import all_arrays
from .export import (LOADED_MODULE_PREFIX, ExportError, export_source, generated_dependencies,
                     signature)

# the console script's name when run as `s2sad`, else `python -m s2sad`
PROG = "s2sad" if os.path.basename(sys.argv[0] or "") == "s2sad" else "python -m s2sad"


class CLIError(Exception):
    """A problem to report in one or two lines (exit status 2), not as a traceback."""


# -- the command line ----------------------------------------------------------------------

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
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    p.add_argument("--debug", action="store_true",
                   help="show the Python traceback of an unexpected error")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    _add_show(sub)
    _add_export(sub)
    demo = sub.add_parser("demo", help="run the demo (the same as no arguments)",
                          description="Run the demo: a function, its generated derivative "
                                      "code, and the gradients next to finite differences.")
    demo.set_defaults(run=_cmd_demo)
    return p


def _version() -> str:
    from . import __version__
    return __version__


def _add_show(sub):
    show = sub.add_parser(
        "show", help="print the generated source of a derivative",
        description="Print the source s2sad generates for the derivative of a function "
                    "(what s2sad.source(grad(f)) shows).",
        epilog=f"Example: {PROG} show model.py:loss --wrt 0,1")
    _common_options(show)
    show.add_argument("--all", action="store_true",
                      help="also print the generated functions it calls (the fwd/bwd pairs of "
                           "recursive functions)")
    show.set_defaults(run=_cmd_show)


def _add_export(sub):
    export = sub.add_parser(
        "export", help="write the derivative as a standalone module (NumPy; --jit: and Numba)",
        description="Write the derivative as a Python module that needs only NumPy, not "
                    "s2sad: the generated code, the s2sad helpers it calls, and the "
                    "functions and constants of your file that it reads.",
        epilog=f"Example: {PROG} export model.py:loss --wrt all -o loss_grad.py")
    _common_options(export)
    export.add_argument("-o", "--output", metavar="OUT.py",
                        help="the file to write (default: standard output)")
    export.add_argument("--globals", dest="globals_mode", choices=("error", "embed", "import"),
                        default="error",
                        help="what to do with a value the code reads that is not source or a "
                             "literal (a global array): error (the default) stops and names it; "
                             "embed copies its current value into the module; import imports "
                             "it from your module (which must then be importable)")
    export.add_argument("--jit", action="store_true",
                        help="also write the code as s2sad.jit compiles it with Numba: "
                             "FUNCTION_jit runs it (needs Numba and s2sad), falling back "
                             "to the NumPy code")
    export.set_defaults(run=_cmd_export)


def _common_options(sp):
    """The options of show and export: what to differentiate, and how."""
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
                         "tuple/list of arrays, k a dict of arrays, m a dict of other "
                         "values, - not passed (its default is used). "
                         "Missing letters are d. Example: --spec dcn")


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0, or 2 after an error).

    The ``s2sad`` console script and ``python -m s2sad`` both call it.
    """
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:         # `s2sad show f.py:f | head`: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    return status


def _main(argv) -> int:
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
    except (CLIError, ExportError) as e:
        print(f"{PROG} {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
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
        for other in generated_dependencies(module):
            text += "\n\n" + other.source.rstrip("\n") + "\n"
    sys.stdout.write(text)
    return 0


def _cmd_export(args) -> int:
    fn, user = load_target(args.target)
    module = generated_module(build(fn, args), args.spec, fn)
    command = " ".join([PROG, "export"] + _options_text(args) + (["--jit"] if args.jit else []))
    text = export_source(module, user, args.target, command, args.output, args.globals_mode,
                         _numba_section(module) if args.jit else None)
    if args.output:
        try:
            with open(args.output, "w") as fh:
                fh.write(text)
        except OSError as e:
            raise CLIError(f"cannot write {args.output}: {e.strerror or e}")
        print(f"wrote {args.output}: {signature(module)}")
    else:
        sys.stdout.write(text)
    return 0


def _numba_section(module):
    """export --jit: the Numba section of the module (CLIError where it has none)."""
    from . import compiled
    if not compiled.available():
        raise CLIError("--jit writes code that Numba compiles, and Numba is not installed: "
                       "pip install 's2sad[numba]'")
    from .compiled import exporting
    try:
        return exporting.section(module)
    except exporting.ExportRefused as e:
        raise CLIError(f"--jit: {e}; export it without --jit (NumPy code)")


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
    return f"{LOADED_MODULE_PREFIX}{base}"


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
        bad = sorted(set(args.spec) - set("dnckm-"))
        if bad:
            raise CLIError(f"--spec {args.spec!r}: unknown letter {bad[0]!r}; use d "
                           "(differentiable), n (not differentiable), c (tuple or list), "
                           "k (dict), m (other dict), - (not passed)")
        if params and len(args.spec) > len(params):
            raise CLIError(f"--spec {args.spec!r} has {len(args.spec)} letters but "
                           f"{_name(fn)} takes {len(params)} positional parameters")
    if args.order > 1 and not isinstance(wrt, int):
        raise CLIError(f"--order {args.order} differentiates again with respect to the same "
                       f"argument, so --wrt must name one argument (got {args.wrt!r}); "
                       "for a mixed derivative, nest s2sad.grad in Python")
    if args.forward:
        if not isinstance(wrt, int):
            raise CLIError(f"--forward differentiates with respect to one argument: give "
                           f"--wrt one index or name (got {args.wrt!r})")
        make = functools.partial(s2sad.derivative, wrt=wrt)
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
    return (spec + all_arrays(n))[:n] if n else spec


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
