"""`python -m reducer.cli`: the `reduce` command, for tests and benchmarks that run this checkout."""
import sys

from .main import main

sys.exit(main())
