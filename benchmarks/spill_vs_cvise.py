#!/usr/bin/env python3
"""This reducer vs C-Vise on the positive spill corpus cases, with the same oracle: ours runs
the built-in spill oracle, C-Vise runs benchmarks/spill_test.py, the very same oracle behind a
C-Reduce-style script. Both start from the same flattened file (C-Vise cannot flatten headers)
at equal -j. C-Vise is stopped after --cvise-factor times our wall time if still running, and
its best file at that moment is measured.

    .venv/bin/python benchmarks/spill_vs_cvise.py corpora/wgrad_c120_pos -j 2
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.oracle.spill import SpillSetup  # noqa: E402
from interestingness.tools.check import run_check  # noqa: E402
from reducer.text.flatten import flatten, include_dirs  # noqa: E402
from reducer.text.lexer import count_tokens  # noqa: E402


def count_lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def run_cvise(src: Path, abs_flags: list[str], kernel: str, jobs: int, limit: Callable[[], float], work: Path,
              predicate: str | None = None, timeout: float = 300.0) -> dict:
    """C-Vise on a copy of `src` with the built-in oracle behind spill_test.py (UB guard included,
    its limit measured once here; `predicate`, or the default one), stopped once it has run
    `limit()` seconds (asked every second, so a limit that depends on a concurrent run can still
    change); its best file then."""
    cv = work / "cvise"
    cv.mkdir()
    shutil.copy(src, cv / src.name)
    calls = work / "calls-cvise"
    script = cv / "test.sh"
    script.write_text(f"#!/bin/bash\necho x >> {calls}\nexec {sys.executable} {ROOT / 'benchmarks/spill_test.py'}\n")
    script.chmod(0o755)
    uninit = SpillSetup(src, abs_flags).compiler.uninitialized(src.read_bytes())
    env = {**os.environ, "SPILL_FILE": src.name, "SPILL_FLAGS": shlex.join(abs_flags), "SPILL_KERNEL": kernel,
           "SPILL_UNINIT": str(uninit), "SPILL_PREDICATE": predicate or "", "SPILL_TIMEOUT": str(timeout)}
    start = time.monotonic()
    # C-Vise's own per-test timeout covers both compiles of a test
    proc = subprocess.Popen(["cvise", "--n", str(jobs), "--timeout", str(int(2 * timeout)), str(script), src.name],
                            cwd=cv, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    while proc.poll() is None and time.monotonic() - start < limit():
        time.sleep(1.0)
    finished = proc.poll() is not None
    if not finished:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
    wall = time.monotonic() - start
    result = (cv / src.name).read_bytes()
    return {"tool": "cvise", "bytes": len(result), "tokens": count_tokens(result), "calls": count_lines(calls),
            "wall": wall, "finished": finished, "result": cv / src.name}


def bench(case: Path, jobs: int, factor: float) -> list[dict]:
    flags = shlex.split((case / "flags").read_text())
    repro = case / "repro.hip"
    flat, _ = flatten(repro, repro.read_bytes(), include_dirs(flags, ROOT))
    rows = []
    with tempfile.TemporaryDirectory(prefix="spillbench-") as d:
        work = Path(d)
        src = work / "case.hip"
        src.write_bytes(flat)
        report = run_check(src, flags)
        kernel = next(k["name"] for k in report["kernels"] if k["interesting"])
        abs_flags = [f if not f.startswith("-I") else "-I" + str((ROOT / f[2:]).resolve()) for f in flags]

        out = work / "ours.hip"
        start = time.monotonic()
        done = subprocess.run([str(ROOT / ".venv/bin/reduce"), str(src), "-o", str(out), "-j", str(jobs), "-q",
                               "--", *abs_flags], cwd=work, capture_output=True, text=True)
        ours_wall = time.monotonic() - start
        if done.returncode != 0:
            raise SystemExit(f"ours failed: {done.stderr[-2000:]}")
        tests = next((line.split()[1] for line in done.stderr.splitlines() if line.strip().startswith("tests")), "?")
        rows.append({"tool": "ours", "bytes": out.stat().st_size, "tokens": count_tokens(out.read_bytes()),
                     "calls": tests, "wall": ours_wall, "finished": True})

        rows.append(run_cvise(src, abs_flags, kernel, jobs, lambda: factor * ours_wall, work))
        for r in rows:
            r.update(case=case.name, orig_bytes=len(flat), orig_tokens=count_tokens(flat))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="+", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--cvise-factor", type=float, default=4.0, help="stop C-Vise after this many times our wall time")
    args = ap.parse_args()
    print(f"| case | tool | bytes (flattened) | tokens (flattened) | oracle calls | wall s (-j {args.jobs}) | finished |")
    print("|---|---|---|---|---|---|---|")
    for case in args.cases:
        for r in bench(case.resolve(), args.jobs, args.cvise_factor):
            print(f"| {r['case']} | {r['tool']} | {r['bytes']} ({r['orig_bytes']}) | {r['tokens']} ({r['orig_tokens']}) "
                  f"| {r['calls']} | {r['wall']:.0f} | {'yes' if r['finished'] else 'stopped'} |", flush=True)


if __name__ == "__main__":
    main()
