"""Sphinx configuration of s2sad's documentation site.

    python -m pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The pages are Markdown (MyST); api.md pulls the docstrings of s2sad's public
functions with autodoc.  tests/api/test_docs.py builds the site with -W.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import s2sad  # noqa: E402  (the checkout's s2sad, for autodoc and the version)

project = "s2sad"
author = "the s2sad contributors"
release = version = s2sad.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]

myst_heading_anchors = 3          # links such as guide.md#forward-mode, as GitHub renders them
autodoc_member_order = "bysource"
autodoc_typehints = "signature"

html_theme = "alabaster"
html_title = f"s2sad {release}"
