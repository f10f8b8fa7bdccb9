#!/usr/bin/env python3
"""Which sanitizer checks the UB guard builds with, and what its build costs: for each positive
corpus case's flattened original, the target kernel's optimised IR (no-LTO side, the oracle's own
commands and shim) built plain, with the guard's checks (interestingness/oracle/ubsan.py CHECKS), and with
each check left out of them or added to them (alignment, pointer-overflow, object-size,
signed-integer-overflow); CPU seconds per build (median of N, interleaved) beside the LTO and
no-LTO builds a test makes, and what the checks leave in the kernel (trap calls by kind: checks the
optimiser could not decide, which the guard's per-kind rule then allows; IR lines).
With --results, the guard's verdict on reduction results against their originals.

    .venv/bin/python benchmarks/ubsan_checks.py -n 3 corpora/wgrad_tiny_pos corpora/wgrad_c120_pos
    .venv/bin/python benchmarks/ubsan_checks.py --results
"""
from __future__ import annotations

import argparse
import resource
import shlex
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.compiler.compile import LTO, NOLTO  # noqa: E402
from interestingness.oracle import ubsan  # noqa: E402
from interestingness.oracle.spill import SpillSetup, by_target  # noqa: E402
from reducer.text.flatten import flatten, include_dirs  # noqa: E402

EXTRA = ("alignment", "pointer-overflow", "object-size", "signed-integer-overflow")
CASES = ("wgrad_tiny_pos", "wgrad_quick_pos", "wgrad_c120_pos", "mfconv_pos")
# (result, its case): results of reductions made before the guard existed
RESULTS = (("corpora/wgrad_tiny_pos/result.hip", "wgrad_tiny_pos"),
           ("docs/example-run/wgrad_quick_pos/result.hip", "wgrad_quick_pos"))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def original(case: Path) -> tuple[SpillSetup, bytes]:
    flags = shlex.split((case / "flags").read_text())
    repro = case / "repro.hip"
    flat, _ = flatten(repro, repro.read_bytes(), include_dirs(flags, ROOT))
    return SpillSetup(repro, flags, hip_headers="shim", cwd=ROOT), flat


def costs(case: Path, n: int) -> None:
    setup, flat = original(case)
    target = setup.resolve(flat, focus=True).targets[0]
    variants: dict[str, tuple[str, list[str]]] = {
        "LTO build (a test)": (LTO, []), "no-LTO build": (NOLTO, []), "IR, no checks": (NOLTO, []),
        "IR, the guard's checks": (NOLTO, ubsan.flags())}
    for c in ubsan.CHECKS:
        variants[f"IR, without {c}"] = (NOLTO, ubsan.flags(tuple(x for x in ubsan.CHECKS if x != c)))
    for c in EXTRA:
        variants[f"IR, with {c}"] = (NOLTO, ubsan.flags((*ubsan.CHECKS, c)))
    seconds: dict[str, list[float]] = {k: [] for k in variants}
    texts: dict[str, str] = {}
    for _ in range(n):
        for name, (side, extra) in variants.items():
            before = children_cpu()
            c = setup.compiler.compile(side, flat, emit="asm" if name.endswith(("(a test)", "build")) else "ir",
                                       extra=extra)
            seconds[name].append(children_cpu() - before)
            assert c.ok, (name, c.message)
            texts[name] = c.asm[0]
    print(f"\n{case.name} ({len(flat)} B flattened), kernel {target}")
    print(f"  {'build':<40} {'CPU s':>6}  {'IR lines':>8}  traps in the kernel")
    for name in variants:
        line = f"  {name:<40} {statistics.median(seconds[name]):6.2f}"
        if name.startswith("IR"):
            p = by_target(ubsan.profiles(texts[name]), [target])[target]
            traps = ", ".join(f"{k}: {v}" for k, v in sorted(p.traps.items())) or "none"
            line += f"  {texts[name].count(chr(10)):8d}  {traps}" + ("" if p.returns else "; no ret")
        print(line)


def results() -> None:
    for result, case in RESULTS:
        setup, flat = original(ROOT / "corpora" / case)
        oracle = setup.resolve(flat, focus=True)
        target = oracle.targets[0]
        found, why = setup.sanitized((ROOT / result).read_bytes(), oracle.compiler)
        assert found is not None, why
        mine = by_target(found, [target]).get(target)
        print(f"{result}: original {oracle.sanitized[target].describe()}")
        print(f"  result: {mine.describe() if mine else 'missing'}")
        print(f"  UB guard: {ubsan.violation(oracle.sanitized[target], mine) or 'passes'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", type=Path, nargs="*")
    ap.add_argument("-n", type=int, default=3, help="builds of each kind")
    ap.add_argument("--results", action="store_true", help="the guard's verdict on earlier results")
    args = ap.parse_args()
    if args.results:
        results()
        return
    for case in args.cases or [ROOT / "corpora" / c for c in CASES]:
        costs(case, args.n)


if __name__ == "__main__":
    main()
