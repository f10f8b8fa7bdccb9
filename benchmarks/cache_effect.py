#!/usr/bin/env python3
"""What the verdict cache saves, side by side in one script: the same reduction with the
persistent cache off, then on (cold), then on again (warm: a re-run after a kill, or with other
options), and optionally two runs of it started together on one empty cache (a batch, two
users), where one run's tests in flight answer the other's. Prints tests run, answers from
memory / cache / a test in flight, their share of all answers, and wall time.

    .venv/bin/python benchmarks/cache_effect.py corpora/hip_syntax --concurrent
    .venv/bin/python benchmarks/cache_effect.py corpora/wgrad_c0_pos
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def command(case: Path, out: Path, jobs: int, cache: Path | None) -> list[str]:
    args = [str(ROOT / ".venv/bin/reduce")]
    if (case / "flags").exists():  # spill case: the built-in oracle
        args += [str(case / "repro.hip"), "-o", str(out)]
        tail = ["--", *shlex.split((case / "flags").read_text())]
    else:
        source = next(p for p in case.iterdir() if p.suffix in (".cpp", ".hip"))
        args += [str(source), "-o", str(out), "--test", str((case / "test.sh").resolve())]
        tail = []
    args += ["-j", str(jobs), "-q", "--force"]
    args += ["--no-cache"] if cache is None else ["--cache", "--cache-dir", str(cache)]
    return args + tail


def start(case: Path, jobs: int, cache: Path | None, work: Path, label: str):
    out = work / f"{label}{'.hip' if (case / 'flags').exists() else '.cpp'}"
    env = {**os.environ, "HIP_SHIM": str(ROOT / "interestingness/compiler/shim")}
    return out, time.monotonic(), subprocess.Popen(command(case, out, jobs, cache), cwd=ROOT, env=env,
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finish(label: str, out: Path, started: float, proc: subprocess.Popen) -> dict:
    _, err = proc.communicate()
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"{label} failed:\n{err[-2000:]}")
    c = json.loads((Path(str(out) + ".work") / "summary.json").read_text())["counters"]
    answered = c["memo_hits"] + c["cache_hits"] + c["shared_waits"]
    return {"label": label, "tests": c["tests"], "memo": c["memo_hits"], "cache": c["cache_hits"],
            "shared": c["shared_waits"], "share": answered / max(1, answered + c["tests"]), "wall": wall,
            "bytes": out.stat().st_size}


def run(case: Path, jobs: int, cache: Path | None, work: Path, label: str) -> dict:
    return finish(label, *start(case, jobs, cache, work, label))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--concurrent", action="store_true", help="also two runs at once on one empty cache")
    args = ap.parse_args()
    case = args.case.resolve()
    with tempfile.TemporaryDirectory(prefix="cachebench-") as d:
        work = Path(d)
        rows = [run(case, args.jobs, None, work, "no-cache"),
                run(case, args.jobs, work / "cache", work, "cache-cold"),
                run(case, args.jobs, work / "cache", work, "cache-warm")]
        if args.concurrent:
            pair = [start(case, args.jobs, work / "shared", work, f"together-{i}") for i in (1, 2)]
            rows += [finish(f"together-{i}", *p) for i, p in zip((1, 2), pair)]
    print(f"case {case.name}, -j {args.jobs}")
    print("| run | tests run | from memory | from cache | from a test in flight | share answered without a test "
          "| wall s | result bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r['tests']} | {r['memo']} | {r['cache']} | {r['shared']} | {r['share']:.0%} "
              f"| {r['wall']:.1f} | {r['bytes']} |")
    off, on = 2 * rows[0]["wall"], rows[1]["wall"] + rows[2]["wall"]
    print(f"\na run and its re-run: {off:.1f}s without the persistent cache (twice the first row), {on:.1f}s with it "
          f"({1 - on / off:.0%} saved)")
    if args.concurrent:
        both = rows[3:]
        tests, shared = sum(r["tests"] for r in both), sum(r["shared"] + r["cache"] for r in both)
        print(f"two runs at once: {tests} tests run, {shared} answered by the other run "
              f"({shared / (tests + shared):.0%}); {2 * rows[0]['tests']} tests for two runs without the cache")


if __name__ == "__main__":
    main()
