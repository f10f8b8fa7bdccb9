#!/usr/bin/env python3
"""What a built-in run's closing reports cost: the original's `reduce check` and the result's
against it, as a run made them before cda203c (two checks side by side, the second building the
original again) and with `check_pair` (each file built once), on a run's work directory, one
after the other (`--pair-first`: the other way round). Prints the wall seconds of each.

    .venv/bin/python benchmarks/closing_reports.py WORKDIR [--pair-first]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.tools import oracles  # noqa: E402
from reducer.run.options import RunConfig  # noqa: E402
from reducer.run.workdir import WorkDir  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workdir", type=Path)
    ap.add_argument("--pair-first", action="store_true")
    args = ap.parse_args()
    wd = WorkDir.open(args.workdir.resolve())
    config, state = RunConfig.from_dict(wd.config), wd.state()
    os.chdir(config.cwd)
    original, result, targets = wd.read("original"), wd.result(), list(state.targets)

    def separate() -> tuple[dict, dict]:
        with ThreadPoolExecutor(1) as beside:
            theirs = beside.submit(oracles.check, config, None, original, targets)
            return theirs.result(), oracles.check(config, None, result, targets, against=original)

    timed = {}
    for name, run in sorted({"two checks": separate, "check_pair": lambda: oracles.check_pair(
            config, None, original, result, targets)}.items(), reverse=not args.pair_first):
        start = time.monotonic()
        timed[name] = run(), time.monotonic() - start
    (before, separate_s), (paired, pair) = timed["two checks"], timed["check_pair"]
    same = [k for k in before[1]["kernels"] if k["selected"]] == [k for k in paired[1]["kernels"] if k["selected"]]
    print(f"{len(original):,} B original, {len(result):,} B result: two checks {separate_s:.1f} s, "
          f"check_pair {pair:.1f} s; the result's kernels reported the same: {same}")


if __name__ == "__main__":
    main()
