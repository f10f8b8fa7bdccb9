#!/usr/bin/env python3
"""What the verdict cache saves, side by side in one run: the same reduction run twice with the
persistent cache off, then twice with it on (cold, then warm: a re-run after a kill, a run with
other options). Prints tests run, answers from memory / cache / in-flight duplicates, their
share of all answers, and wall time.

    .venv/bin/python benchmarks/cache_effect.py corpora/hip_syntax
    .venv/bin/python benchmarks/cache_effect.py corpora/wgrad_c0_pos
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = re.compile(r"tests\s+(\d+) run .*?, (\d+) answered from memory, (\d+) from the cache, (\d+) by a test in flight")


def command(case: Path, out: Path) -> list[str]:
    if (case / "flags").exists():  # spill case: the built-in oracle
        return [str(case / "repro.hip"), "-o", str(out), "--", *shlex.split((case / "flags").read_text())]
    source = next(p for p in case.iterdir() if p.suffix in (".cpp", ".hip"))
    return [str(source), "-o", str(out), "--test", str((case / "test.sh").resolve())]


def run(case: Path, jobs: int, cache: str | None, work: Path, label: str) -> dict:
    out = work / f"{label}{'.hip' if (case / 'flags').exists() else '.cpp'}"
    args = [str(ROOT / ".venv/bin/reduce"), *command(case, out)[:3], "-j", str(jobs), "-q", "--force"]
    args += ["--no-cache"] if cache is None else ["--cache", "--cache-dir", cache]
    args += command(case, out)[3:]
    env = {**os.environ, "HIP_SHIM": str(ROOT / "interestingness/shim")}
    start = time.monotonic()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    m = TESTS.search(done.stderr)
    if done.returncode != 0 or not m:
        raise SystemExit(f"{label} failed:\n{done.stderr[-2000:]}")
    tests, memo, cached, shared = map(int, m.groups())
    answers = tests + memo + cached + shared
    return {"label": label, "tests": tests, "memo": memo, "cache": cached, "shared": shared,
            "share": (memo + cached + shared) / answers, "wall": wall, "bytes": out.stat().st_size}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    case = args.case.resolve()
    with tempfile.TemporaryDirectory(prefix="cachebench-") as d:
        work = Path(d)
        rows = [run(case, args.jobs, None, work, "no-cache-1"), run(case, args.jobs, None, work, "no-cache-2"),
                run(case, args.jobs, str(work / "cache"), work, "cache-cold"),
                run(case, args.jobs, str(work / "cache"), work, "cache-warm")]
    print(f"case {case.name}, -j {args.jobs}")
    print("| run | tests run | from memory | from cache | in-flight shared | share answered without a test | wall s | result bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r['tests']} | {r['memo']} | {r['cache']} | {r['shared']} | {r['share']:.0%} "
              f"| {r['wall']:.1f} | {r['bytes']} |")
    off = rows[0]["wall"] + rows[1]["wall"]
    on = rows[2]["wall"] + rows[3]["wall"]
    print(f"\ntwo runs without the persistent cache: {off:.1f}s; with it: {on:.1f}s ({1 - on / off:.0%} saved)")


if __name__ == "__main__":
    main()
