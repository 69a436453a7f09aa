"""python -m s2sad: run the demo."""

from .demo import main

main()
