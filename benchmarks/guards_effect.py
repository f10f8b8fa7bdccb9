#!/usr/bin/env python3
"""What the init and loop guards cost and what they buy: the same spill case reduced side by side in
one run, with the default guards and with `--no-init-guard --no-loop-guard`, each with its own empty
verdict cache. Each result is then checked the way the guards check (`reduce check`): does the
spill differential hold, do the target kernels compile to the same LTO code with
-ftrivial-auto-var-init=zero and =pattern (if not, the result reads an automatic variable before
writing it), and does it still spill inside a loop.

    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/guards_effect.py corpora/wgrad_c120_pos -j 2

With --one-at-a-time the reductions run one after another, each alone on the machine (wall times
then compare as the user would see them).
"""
from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from transforms_effect import reduce

from interestingness.tools.check import run_check

VARIANTS = {"guarded": [], "unguarded": ["--no-init-guard", "--no-loop-guard"]}


def run(variant: str, case: Path, flags: list[str], jobs: int, work: Path) -> dict:
    out = work / f"{case.name}-{variant}.hip"
    start = time.monotonic()
    row = reduce([str(case / "repro.hip"), "-o", str(out), "-j", str(jobs), "-q", "--force",
                  "--cache-dir", str(work / f"cache-{variant}"), *VARIANTS[variant], "--", *flags], ROOT)
    row["wall"] = time.monotonic() - start
    report = run_check(out, flags)
    target = next((k for k in report["kernels"] if k["interesting"]), None) or report["kernels"][0]
    row["interesting"] = report["interesting"]
    row["init"] = "; ".join(f"{mode}: {diff}" for mode, diff in report["init_guard"].items() if diff) or "same code"
    row["loop_spills"] = (target["lto"] or {}).get("loop_spill_ops")
    row["result"] = out
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", type=Path, nargs="+")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="copy the results here")
    ap.add_argument("--one-at-a-time", action="store_true",
                    help="run the reductions one after another, each with the whole machine, not side by side")
    args = ap.parse_args()
    print(f"| case | guards | bytes (start) | tokens (start) | tests run | wall s (-j {args.jobs}) | `reduce check` "
          "| with -ftrivial-auto-var-init | LTO spill ops in loops |")
    print("|---|---|---|---|---|---|---|---|---|")
    jobs = [(case.resolve(), variant) for case in args.cases for variant in VARIANTS]
    with tempfile.TemporaryDirectory(prefix="guards-") as d, ThreadPoolExecutor(1 if args.one_at_a_time else len(jobs)) as pool:
        def one(job: tuple[Path, str]) -> dict:
            case, variant = job
            flags = [f if not f.startswith("-I") else "-I" + str((ROOT / f[2:]).resolve())
                     for f in shlex.split((case / "flags").read_text())]
            return run(variant, case, flags, args.jobs, Path(d))

        for (case, variant), r in zip(jobs, pool.map(one, jobs)):
            print(f"| {case.name} | {variant} | {r['bytes']} ({r['bytes0']}) | {r['tokens']} ({r['tokens0']}) "
                  f"| {r['tests']} | {r['wall']:.0f} | {'interesting' if r['interesting'] else 'NOT interesting'} "
                  f"| {r['init']} | {r['loop_spills']} |", flush=True)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / r["result"].name).write_bytes(r["result"].read_bytes())


if __name__ == "__main__":
    main()
