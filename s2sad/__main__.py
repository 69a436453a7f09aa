"""python -m s2sad: the demo (no arguments), or the show / export commands (see s2sad/cli.py).

The ``s2sad`` console script runs the same :func:`s2sad.cli.main`.
"""

import sys

from .cli import main

sys.exit(main())
