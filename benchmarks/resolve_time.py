#!/usr/bin/env python3
"""What a run pays before its first candidate: `SpillSetup.resolve` of a file flattened as
`reduce` flattens it (the original's builds, the cheaper commands' checks, the guards' builds of
the original), timed (wall seconds: run it on an idle machine), and what it decided. Run it
from two checkouts (PYTHONPATH=CHECKOUT) to compare them on one input.

    C=corpora/wgrad_tiny_pos; .venv/bin/python benchmarks/resolve_time.py $C/repro.hip -- -std=gnu++20 -I$C/include
    .venv/bin/python benchmarks/resolve_time.py IN/repro.hip --predicate "$(cat IN/predicate)" -- $(cat IN/flags)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: another checkout's code
import interestingness  # noqa: E402
from interestingness.oracle.spill import SpillSetup  # noqa: E402
from reducer.text.flatten import flatten, include_dirs  # noqa: E402


def main() -> None:
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s FILE [--predicate P] -- FLAGS")
    parser.add_argument("file", type=Path)
    parser.add_argument("--predicate", default=None, help="as `reduce --predicate` (default: reduce's)")
    args, flags = parser.parse_args(argv[:cut]), argv[cut + 1:]
    text, headers = flatten(args.file.resolve(), args.file.read_bytes(), include_dirs(flags, Path.cwd()))
    with tempfile.TemporaryDirectory() as work:
        flat = Path(work) / args.file.name
        flat.write_bytes(text)
        setup = SpillSetup(flat, flags, predicate=args.predicate, cwd=Path.cwd(), tmp_dir=work)
        wall = time.monotonic()
        oracle = setup.resolve(text, focus=True)
        wall = time.monotonic() - wall
    settings = oracle.settings()
    print(f"code from {Path(interestingness.__file__).parent.parent}: {args.file} flattened "
          f"({len(headers)} headers, {len(text):,} B)")
    print(f"resolve: {wall:.1f} s")
    print("decided: " + ", ".join(f"{k} {settings.get(k)}" for k in
                                  ("lean_shim", "pch", "shared_front_end", "variants", "init_guard")))


if __name__ == "__main__":
    main()
