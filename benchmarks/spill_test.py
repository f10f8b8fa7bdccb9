#!/usr/bin/env python3
"""The built-in spill oracle as a C-Reduce-style test, so peers reduce with the very same
oracle (same compiles, same predicate, same laziness) that `reduce FILE -- FLAGS` uses.

Configured by environment (scripts get no arguments):
    SPILL_FILE    file name of the candidate in the current directory
    SPILL_FLAGS   clang flags, shell-quoted, include dirs absolute
    SPILL_KERNEL  mangled target kernel(s), separated by whitespace (all must stay interesting)
    SPILL_UNINIT  -Wuninitialized warnings the original has (the UB guard's limit; unset: no guard)
    SPILL_PREDICATE  the predicate (unset: the default one)
    SPILL_TIMEOUT    seconds per compile (unset: 300)
Exit 0 = interesting. A SIGTERM (C-Vise stopping a test it no longer needs) exits cleanly, so the
compiles' temporary directories go with it.
"""
import os
import shlex
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from interestingness.measure.predicates import DEFAULT_PREDICATE  # noqa: E402
from interestingness.oracle.spill import SpillOracle, SpillSetup  # noqa: E402


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    name = os.environ["SPILL_FILE"]
    setup = SpillSetup(name, shlex.split(os.environ.get("SPILL_FLAGS", "")),
                       predicate=os.environ.get("SPILL_PREDICATE") or DEFAULT_PREDICATE,
                       timeout=float(os.environ.get("SPILL_TIMEOUT", "300")))
    oracle = SpillOracle(setup.compiler, setup.predicate, os.environ["SPILL_KERNEL"].split(),
                         uninitialized=int(os.environ["SPILL_UNINIT"]) if "SPILL_UNINIT" in os.environ else None)
    return 0 if oracle.test(Path(name).read_bytes()).interesting else 1


if __name__ == "__main__":
    sys.exit(main())
