#!/usr/bin/env python3
"""What the fallback shim's host <cmath>/<cstdlib> cost each build: a case's flattened start file
built with the oracle's own commands, with the full shim and with its lean variant (the one a
run uses when the original builds the same code without them), each side and the front end
alone, N times each, interleaved. Prints wall and CPU seconds per build.

    .venv/bin/python benchmarks/shim_cost.py corpora/wgrad_quick_pos -n 5
"""
from __future__ import annotations

import argparse
import dataclasses
import resource
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.compiler.compile import LTO, NOLTO  # noqa: E402
from interestingness.oracle.spill import SpillSetup  # noqa: E402
from reducer.text.flatten import flatten, include_dirs  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", type=Path)
    ap.add_argument("-n", type=int, default=5, help="builds of each kind")
    args = ap.parse_args()
    flags = shlex.split((args.case / "flags").read_text())
    repro = args.case / "repro.hip"
    flat, _ = flatten(repro, repro.read_bytes(), include_dirs(flags, ROOT))
    full = SpillSetup(repro, flags, hip_headers="shim", cwd=ROOT).compiler
    lean = dataclasses.replace(full, hip=full.hip.lean())
    kinds = {"LTO side": lambda c: c.compile(LTO, flat), "no-LTO side": lambda c: c.compile(NOLTO, flat),
             "front end only": lambda c: c.diagnostics(flat)}
    totals = {(k, v): [0.0, 0.0] for k in kinds for v in ("full", "lean")}
    for _ in range(args.n):
        for kind, build in kinds.items():
            for variant, compiler in (("full", full), ("lean", lean)):
                wall, cpu = time.monotonic(), children_cpu()
                build(compiler)
                totals[kind, variant][0] += time.monotonic() - wall
                totals[kind, variant][1] += children_cpu() - cpu
    print(f"{args.case.name}: {len(flat)} bytes flattened, {args.n} builds of each kind")
    print("| build | full shim, wall s | lean, wall s | full shim, CPU s | lean, CPU s |")
    print("|---|---|---|---|---|")
    for kind in kinds:
        (fw, fc), (lw, lc) = totals[kind, "full"], totals[kind, "lean"]
        print(f"| {kind} | {fw / args.n:.3f} | {lw / args.n:.3f} | {fc / args.n:.3f} | {lc / args.n:.3f} |")


if __name__ == "__main__":
    main()
