#!/usr/bin/env python3
"""What the HIP-aware transforms (NEW below) are worth, and where C-Vise stands: the same spill
case reduced side by side in one run, with the default schedule, with the schedule as it was
before them, and by C-Vise. Each of ours gets its own empty verdict cache.

"without" runs `--passes` with the old first and main lists (the fixpoint over both; the first
list finds nothing after one sweep), then `--passes join-lines` on that result, which is the
default schedule's last phase; its tests are added. "cvise" runs C-Vise on the flattened file
with the same oracle (benchmarks/spill_test.py), stopped after --cvise-factor times the "with"
run's wall time (or --cvise-cap). The variants run at the same time, so all see the same load.

    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/transforms_effect.py corpora/wgrad_c120_pos -j 2
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from spill_vs_cvise import run_cvise

from interestingness.tools.check import run_check
from reducer import passes
from reducer.passes.cxx import inside_template
from reducer.text.flatten import flatten, include_dirs
from reducer.text.lexer import count_tokens
from reducer.text.source import Source

VARIANTS = ("with", "without", "cvise")
NEW = ("instantiate", "unused", "inline", "aliases", "constants", "expr-constant", "global-to-local",
       "local-to-global")
SUMMARY = re.compile(r"bytes\s+(\d+) -> (\d+).*?tokens (\d+) -> (\d+).*?tests\s+(\d+) run", re.DOTALL)
INCLUDE = re.compile(rb"^\s*#\s*include\s*[<\"]([^>\"]+)", re.MULTILINE)


def reduce(args: list[str], cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "reducer.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, check=False)
    m = SUMMARY.search(done.stdout + done.stderr)
    if done.returncode != 0 or m is None:
        raise SystemExit(f"reduce failed ({done.returncode}): {(done.stdout + done.stderr)[-3000:]}")
    return dict(zip(("bytes0", "bytes", "tokens0", "tokens", "tests"), map(int, m.groups())))


def run(variant: str, case: Path, flags: list[str], jobs: int, work: Path, limit: Callable[[], float]) -> dict:
    out = work / f"{variant}.hip"
    common = ["-j", str(jobs), "-q", "--force", "--cache-dir", str(work / f"cache-{variant}")]
    start = time.monotonic()
    if variant == "with":
        row = reduce([str(case / "repro.hip"), "-o", str(out), *common, "--", *flags], ROOT)
    elif variant == "without":
        old = [n for n in (*passes.FIRST, *passes.MAIN) if n not in NEW]
        mid = work / "without-main.hip"
        row = reduce([str(case / "repro.hip"), "-o", str(mid), *common, "--passes", ",".join(old), "--", *flags], ROOT)
        last = reduce([str(mid), "-o", str(out), *common, "--passes", ",".join(passes.LAST), "--", *flags], ROOT)
        row.update(bytes=last["bytes"], tokens=last["tokens"], tests=row["tests"] + last["tests"])
    else:
        flat, _ = flatten(case / "repro.hip", (case / "repro.hip").read_bytes(), include_dirs(flags, ROOT))
        src = work / "repro.hip"
        src.write_bytes(flat)
        kernel = next(k["name"] for k in run_check(src, flags)["kernels"] if k["interesting"])
        cv = run_cvise(src, flags, kernel, jobs, limit, work)
        out.write_bytes(cv["result"].read_bytes())
        row = {"bytes0": len(flat), "tokens0": count_tokens(flat), "bytes": cv["bytes"], "tokens": cv["tokens"],
               "tests": cv["calls"], "finished": cv["finished"]}
    row["wall"] = time.monotonic() - start
    result = out.read_bytes()
    src = Source(result, "cuda")
    kernels = [n for n in src.nodes() if n.type in ("function_definition", "declaration")
               and any(c.type == "__global__" for c in n.children)]
    row["kernel_template"] = any(inside_template(k) for k in kernels) or not kernels
    row["templates"] = sum(1 for n in src.nodes() if n.type == "template_declaration")
    row["includes"] = sorted({m.decode() for m in INCLUDE.findall(result)})
    row["interesting"] = run_check(out, flags)["interesting"]
    row["result"] = out
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--only", choices=VARIANTS, help="run one variant only")
    ap.add_argument("--cvise-factor", type=float, default=2.0, help="stop C-Vise after this many times the with run")
    ap.add_argument("--cvise-cap", type=float, default=float("inf"), help="and at the latest after this many seconds")
    ap.add_argument("--keep", type=Path, help="copy the results here")
    args = ap.parse_args()
    case = args.case.resolve()
    flags = [f if not f.startswith("-I") else "-I" + str((ROOT / f[2:]).resolve())
             for f in shlex.split((case / "flags").read_text())]
    print(f"| case | reducer | bytes (flattened) | tokens (flattened) | tests run | wall s (-j {args.jobs}) "
          f"| kernel still a template | templates left | includes | `reduce check` |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    walls: dict[str, float] = {}

    def cvise_limit() -> float:
        return min(args.cvise_cap, args.cvise_factor * walls["with"] if "with" in walls else args.cvise_cap)

    def one(variant: str) -> dict:
        r = run(variant, case, flags, args.jobs, Path(d), cvise_limit)
        walls[variant] = r["wall"]
        return r

    variants = (args.only,) if args.only else VARIANTS
    with tempfile.TemporaryDirectory(prefix="transforms-") as d, ThreadPoolExecutor(len(variants)) as pool:
        for variant, r in zip(variants, pool.map(one, variants)):
            name = {"with": "ours, with transforms", "without": "ours, without transforms",
                    "cvise": "C-Vise" + ("" if r.get("finished") else " (stopped)")}[variant]
            print(f"| {case.name} | {name} | {r['bytes']} ({r['bytes0']}) | {r['tokens']} ({r['tokens0']}) "
                  f"| {r['tests']} | {r['wall']:.0f} | {'yes' if r['kernel_template'] else 'no'} | {r['templates']} "
                  f"| {', '.join(r['includes'])} | {'interesting' if r['interesting'] else 'NOT interesting'} |", flush=True)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / r["result"].name).write_bytes(r["result"].read_bytes())

if __name__ == "__main__":
    main()
