#!/usr/bin/env python3
"""The quality guard: reduce every script corpus case and the small spill cases, record bytes,
tokens, tests and the result's digest per case, and compare them with the figures stored for an
earlier commit. A case whose tokens grow by more than 5% is named; with --same, any change of
result or test count is (a refactoring must change nothing). At -j 1 the test count is the
engine's alone; above it, a test starts whenever one ends, so how many later candidates run
beside a slow one (and are wasted when an earlier one wins) depends on timing: compare test
counts at -j 1.

Run it before and after every change to passes or the schedule, and put its table in the
closing note. It prints figures; it is not a test.

    .venv/bin/python benchmarks/quality_guard.py -j 2 --record            # measure HEAD, store it
    .venv/bin/python benchmarks/quality_guard.py -j 1,2 --against f77a3d7 --same
    .venv/bin/python benchmarks/quality_guard.py --checkout /tmp/old -j 2 --record   # another commit's tree

Each run uses a fresh private verdict cache, so test counts are those of a first run.
Figures go to benchmarks/quality.json: {commit: {"case@jN": {...}}}.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from reducer.text.lexer import count_tokens  # noqa: E402

STORE = ROOT / "benchmarks" / "quality.json"
SCRIPT_CASES = ["cxx_diag", "hip_syntax"]       # a source file and test.sh (C-Reduce convention)
SPILL_CASES = ["wgrad_tiny_pos"]                # repro.hip and flags: the built-in oracle
MORE_SPILL_CASES = ["wgrad_quick_pos"]          # --all adds these (20 minutes each at -j 2)
WORSE = 0.05                                     # tokens more than this much above the stored figure


def commit_of(checkout: Path) -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=checkout,
                           capture_output=True, text=True).stdout.strip()
    return head.stdout.strip() + ("+dirty" if dirty else "")


def command(checkout: Path, case: Path, jobs: int, out: Path, cache: Path) -> list[str]:
    reduce = [sys.executable, "-m", "reducer.cli"]
    common = ["-j", str(jobs), "-o", str(out), "--cache-dir", str(cache), "--force", "-q"]
    if (case / "test.sh").exists():
        source = next(p for p in sorted(case.iterdir()) if p.suffix in (".cpp", ".hip", ".cu", ".c", ".cc"))
        return [*reduce, str(source), "--test", str(case / "test.sh"), "--cache", *common]
    flags = shlex.split((case / "flags").read_text())
    return [*reduce, str(case / "repro.hip"), *common, "--", *flags]


def measure(checkout: Path, name: str, jobs: int, keep: Path | None = None) -> dict:
    case = checkout / "corpora" / name
    with tempfile.TemporaryDirectory(prefix=f"quality-{name}-") as d:
        out = Path(d) / f"result{'.cpp' if (case / 'case.cpp').exists() else '.hip'}"
        # the shim where the checkout has it (interestingness/shim before the package was split)
        shim = next(s for s in ("interestingness/compiler/shim", "interestingness/shim") if (checkout / s).is_dir())
        env = {**os.environ, "PYTHONPATH": str(checkout), "HIP_SHIM": str(checkout / shim)}
        cmd = command(checkout, case, jobs, out, Path(d) / "cache")
        start = time.monotonic()
        done = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True)
        wall = time.monotonic() - start
        if done.returncode != 0:
            return {"failed": done.returncode, "error": done.stderr.strip()[-600:]}
        summary = json.loads((Path(str(out) + ".work") / "summary.json").read_text())
        best = Path(str(out) + ".work") / f"best{out.suffix}"  # before hygiene and clang-format
        reduced = best.read_bytes() if best.exists() else out.read_bytes()
        result = out.read_bytes()
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copytree(Path(str(out) + ".work"), keep / f"{name}@j{jobs}.work", dirs_exist_ok=True)
            shutil.copy(out, keep / f"{name}@j{jobs}{out.suffix}")
        return {"bytes": summary["bytes"]["reduced"], "tokens": summary["tokens"]["reduced"],
                "written_bytes": len(result), "written_tokens": count_tokens(result), "tests": summary["tests"],
                "wall": round(wall, 1), "sha256": hashlib.sha256(reduced).hexdigest()[:16],
                "written_sha256": hashlib.sha256(result).hexdigest()[:16]}


def compare(now: dict, then: dict | None, same: bool, jobs: int) -> str:
    if then is None:
        return "(no stored figure)"
    if "failed" in now or "failed" in then:
        return "FAILED" if "failed" in now else "was failing"
    notes = []
    if now["tokens"] > then["tokens"] * (1 + WORSE):
        notes.append(f"WORSE: tokens {then['tokens']} -> {now['tokens']}")
    if same:
        for key in ("sha256", "written_sha256", "tests"):
            if now[key] != then[key] and (key != "tests" or jobs == 1):
                notes.append(f"CHANGED {key}: {then[key]} -> {now[key]}")
    return "; ".join(notes) or "ok"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", "--jobs", default="2", help="comma-separated -j values [2]")
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the tree to measure [this repository]")
    ap.add_argument("--cases", help="comma-separated corpus names [the script cases and the small spill cases]")
    ap.add_argument("--all", action="store_true", help="add the bigger spill cases")
    ap.add_argument("--against", help="the stored commit to compare with [the newest stored other commit]")
    ap.add_argument("--same", action="store_true", help="name any change of result bytes or test count")
    ap.add_argument("--record", action="store_true", help="store the figures under the checkout's commit")
    ap.add_argument("--keep", type=Path, help="copy each result and its work directory here")
    args = ap.parse_args()
    checkout = args.checkout.resolve()
    names = args.cases.split(",") if args.cases else SCRIPT_CASES + SPILL_CASES + (MORE_SPILL_CASES if args.all else [])
    commit = commit_of(checkout)
    if shutil.which("g++") is None:
        names = [n for n in names if n != "cxx_diag"]
    rows = {}
    for name in names:
        for jobs in map(int, args.jobs.split(",")):
            key = f"{name}@j{jobs}"
            rows[key] = measure(checkout, name, jobs, args.keep)
            r = rows[key]
            print(f"{key}: {r}", file=sys.stderr, flush=True)
    store = json.loads(STORE.read_text()) if STORE.exists() else {}  # again: other runs may have stored since
    against = args.against or next((c for c in reversed(list(store)) if c != commit), None)
    print(f"quality guard at {commit}, compared with {against or 'nothing stored'}")
    print("| case | bytes | tokens | tests | wall s | written bytes | stored: tokens, tests | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for key, r in rows.items():
        then = store.get(against, {}).get(key) if against else None
        stored = f"{then['tokens']}, {then['tests']}" if then and "failed" not in then else ""
        if "failed" in r:
            print(f"| {key} | | | | | | {stored} | FAILED (exit {r['failed']}): {r['error'][-200:]!r} |")
            continue
        print(f"| {key} | {r['bytes']} | {r['tokens']} | {r['tests']} | {r['wall']} | {r['written_bytes']} | "
              f"{stored} | {compare(r, then, args.same, int(key.rsplit('@j', 1)[1]))} |")
    if args.record:
        store.setdefault(commit, {}).update(rows)
        STORE.write_text(json.dumps(store, indent=1) + "\n")
        print(f"stored under {commit} in {STORE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
