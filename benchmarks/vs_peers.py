#!/usr/bin/env python3
"""Side-by-side benchmark: this reducer vs C-Vise (and C-Reduce) on the same cases with the same
interestingness script at equal -j. Prints final bytes, tokens, oracle calls, wall time, and whether
the result's brackets are balanced and how many parse errors tree-sitter finds in it.

A case is a directory holding one source file and `test.sh` (C-Reduce convention). Oracle calls
are counted by a wrapper around the script, the same for every reducer.

    .venv/bin/python benchmarks/vs_peers.py corpora/cxx_diag corpora/hip_syntax -j 2
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from reducer.text.lexer import count_tokens, tokenize  # noqa: E402
from reducer.text.source import Source, language_for  # noqa: E402

WRAPPER = """#!/bin/bash
echo x >> {counter}
exec {script} "$@"
"""


def balanced(text: bytes) -> bool:
    """Whether every (, [ and { of the result's tokens is closed, in order (strings and comments
    are tokens of their own, so their brackets do not count)."""
    pairs, stack = {b")": b"(", b"]": b"[", b"}": b"{"}, []
    for t in tokenize(text):
        tok = text[t.start:t.end]
        if tok in (b"(", b"[", b"{"):
            stack.append(tok)
        elif tok in pairs and (not stack or stack.pop() != pairs[tok]):
            return False
    return not stack


def case_files(case: Path) -> tuple[Path, Path]:
    sources = [p for p in case.iterdir() if p.is_file() and p.suffix in (".cpp", ".hip", ".cu", ".c", ".cc")]
    if len(sources) != 1 or not (case / "test.sh").exists():
        raise SystemExit(f"{case}: need exactly one source file and test.sh")
    return sources[0], case / "test.sh"


def run_one(tool: str, case: Path, jobs: int, timeout: float) -> dict:
    source, script = case_files(case)
    with tempfile.TemporaryDirectory(prefix=f"bench-{tool}-") as d:
        work = Path(d)
        target = work / source.name
        shutil.copy(source, target)
        counter = work / "calls"
        wrapper = work / "wrapped-test.sh"
        wrapper.write_text(WRAPPER.format(counter=counter, script=script.resolve()))
        wrapper.chmod(0o755)
        if tool == "ours":
            out = work / f"{source.stem}.out{source.suffix}"
            cmd = [sys.executable, "-m", "reducer.cli", str(target), "--test", str(wrapper), "-j", str(jobs),
                   "-o", str(out), "-q", "--timeout", str(timeout),
                   "--no-recheck", "--check-repeat", "1"]  # as the peers: one test per candidate
        elif tool == "cvise":
            out = target
            cmd = ["cvise", "--n", str(jobs), "--timeout", str(int(timeout)), str(wrapper), target.name]
        elif tool == "creduce":
            out = target
            cmd = ["creduce", "--n", str(jobs), "--timeout", str(int(timeout)), str(wrapper), target.name]
        else:
            raise SystemExit(f"unknown tool {tool}")
        env = {**os.environ, "HIP_SHIM": os.environ.get("HIP_SHIM", str(ROOT / "interestingness/compiler/shim")),
               "PYTHONPATH": str(ROOT)}  # this checkout's reducer, whatever the interpreter's install
        start = time.monotonic()
        done = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env)
        wall = time.monotonic() - start
        if done.returncode != 0:
            raise SystemExit(f"{tool} failed on {case}:\n{done.stderr[-2000:]}")
        result = out.read_bytes()
        calls = len(counter.read_text().splitlines()) if counter.exists() else 0
        return {"tool": tool, "case": case.name, "bytes": len(result), "tokens": count_tokens(result),
                "balanced": balanced(result), "parse_errors": Source(result, language_for(source, result)).error_count,
                "calls": calls, "wall": wall, "orig_bytes": source.stat().st_size,
                "orig_tokens": count_tokens(source.read_bytes())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="+", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--tools", default="ours,cvise")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    rows = [run_one(tool, case, args.jobs, args.timeout)
            for case in args.cases for tool in args.tools.split(",")]
    print(f"| case | tool | bytes (orig) | tokens (orig) | oracle calls | wall s (-j {args.jobs}) | balanced | "
          "parse errors |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['tool']} | {r['bytes']} ({r['orig_bytes']}) | {r['tokens']} ({r['orig_tokens']}) "
              f"| {r['calls']} | {r['wall']:.1f} | {'yes' if r['balanced'] else 'no'} | {r['parse_errors']} |")


if __name__ == "__main__":
    main()
