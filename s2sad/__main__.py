"""python -m s2sad: the demo (no arguments), or the show / export commands (see s2sad/cli.py)."""

import os
import sys

from .cli import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:             # `python -m s2sad show f.py:f | head`: not an error
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 0
sys.exit(status)
