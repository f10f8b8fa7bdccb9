#!/usr/bin/env python3
"""Adaptive sweeps against full sweeps (issue 15): the same case, the same oracle and the same
options, reduced by both variants side by side, started at the same time so both see the same
load. The only difference is `--adaptive-sweeps` (after a full sweep of the main passes, only the
passes that removed something run again until none does, then a full sweep again) against
`--full-sweeps` (every sweep runs every main pass). Each variant has its own empty verdict cache
and work directory.

A case is a corpus directory: one with `test.sh` is reduced with that script (hip_syntax's needs
HIP_SHIM, which is set), one with `flags` with the built-in spill oracle. With --time-budget
both variants stop at that much wall time, so a spill case that does not finish is compared at
equal time; sizes at the checkpoints of --at (seconds) come from each run's size history. With
--then, each variant stopped by the budget is resumed at once (`reduce resume --time-budget`)
with that new total, as an overnight run is: its first session's pass time caps stay.

    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/adaptive_sweeps.py corpora/cxx_diag corpora/hip_syntax -j 2
    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/adaptive_sweeps.py corpora/wgrad_c121_pos -j 2 \\
        --time-budget 90m --then 4h --at 600 1200 2400 3600 5400
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {"full": "--full-sweeps", "adaptive": "--adaptive-sweeps"}


def command(case: Path, variant: str, jobs: int, work: Path, budget: str | None) -> list[str]:
    out = work / variant / "result"
    common = ["-j", str(jobs), "-q", "--force", VARIANTS[variant], "--workdir", str(work / variant / "work"),
              "--cache-dir", str(work / variant / "cache"), *(["--time-budget", budget] if budget else [])]
    if (case / "test.sh").exists():
        source = next(p for p in sorted(case.iterdir()) if p.suffix in (".cpp", ".hip", ".c", ".cu"))
        return [str(source), "--test", str(case / "test.sh"), "-o", str(out.with_suffix(source.suffix)), *common]
    flags = [f if not f.startswith("-I") else "-I" + str((ROOT / f[2:]).resolve())
             for f in shlex.split((case / "flags").read_text())]
    return [str(case / "repro.hip"), "-o", str(out.with_suffix(".hip")), *common, "--", *flags]


def run(case: Path, variant: str, jobs: int, work: Path, budget: str | None, then: str | None) -> dict:
    (work / variant).mkdir(parents=True)
    args = command(case, variant, jobs, work, budget)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HIP_SHIM": str(ROOT / "interestingness" / "compiler" / "shim")}
    start = time.monotonic()
    sessions = [args] + ([["resume", str(work / variant / "work"), "--time-budget", then, "-q"]] if then else [])
    for session in sessions:
        done = subprocess.run([sys.executable, "-m", "reducer.cli", *session], cwd=ROOT, capture_output=True,
                              text=True, env=env, check=False)
        if done.returncode not in (0, 7):  # 7: stopped by the time budget
            raise SystemExit(f"{case.name} {variant}: reduce failed ({done.returncode}): {done.stderr[-3000:]}")
        if done.returncode == 0:
            break
    wall = time.monotonic() - start
    summary = json.loads((work / variant / "work" / "summary.json").read_text())
    state = json.loads((work / variant / "work" / "state.json").read_text())
    return {"variant": variant, "finished": done.returncode == 0, "wall": wall, "summary": summary,
            "sweeps": state["position"]["sweep"], "command": "reduce " + shlex.join(args)}


def size_at(history: list[list[float]], t: float) -> int:
    """The best file's size at `t` seconds into the run (the history steps at each accept)."""
    return next((size for at, size in reversed(history) if at <= t), history[0][1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", type=Path, nargs="+")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--time-budget", help="stop both variants after this long (e.g. 40m)")
    ap.add_argument("--then", help="resume a variant stopped by --time-budget with this new total budget")
    ap.add_argument("--at", type=float, nargs="*", default=[], help="also give the sizes at these seconds")
    ap.add_argument("--json", type=Path, help="write the raw figures here")
    args = ap.parse_args()
    rows, raw = [], []
    for case in args.cases:
        case = case.resolve()
        with tempfile.TemporaryDirectory(prefix="adaptive-") as d, ThreadPoolExecutor(len(VARIANTS)) as pool:
            results = list(pool.map(lambda v: run(case, v, args.jobs, Path(d), args.time_budget, args.then), VARIANTS))
        for r in results:
            s = r["summary"]
            at = ", ".join(f"{t:.0f}s: {size_at(s['history'], t)}" for t in args.at)
            b, t = s["bytes"], s["tokens"]  # the reduced text's size, before the finishing steps
            rows.append(f"| {case.name} | {r['variant']} | {b.get('reduced', b['result'])} ({b['start']}) | "
                        f"{t.get('reduced', t['result'])} ({t['start']}) | {s['tests']} | {r['wall']:.0f} | "
                        f"{r['sweeps']} | {'yes' if r['finished'] else 'stopped by the budget'} |"
                        + (f" {at} |" if args.at else ""))
            print(rows[-1], flush=True)
            raw.append({"case": case.name, **{k: v for k, v in r.items() if k != "summary"},
                        "bytes": s["bytes"], "tokens": s["tokens"], "tests": s["tests"], "history": s["history"]})
    print()
    print(f"| case | sweeps | bytes (start) | tokens (start) | tests | wall s (-j {args.jobs}) | sweeps run | finished |"
          + (" bytes at |" if args.at else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|" if args.at else ""))
    print("\n".join(rows))
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1) + "\n")


if __name__ == "__main__":
    main()
