#!/usr/bin/env python3
"""The shared front end (compile.Build with Compiler.shared_front_end): does it build the same,
and what does it save?

`identity` (the default): every corpus case (corpora/*_pos and *_neg with their `flags`,
corpora/rocm_style/*.hip with -std=c++20), built both sides through the driver (two front ends)
and with one shared front end, with the PCH where the file starts with the HIP include, and the
LTO side with -ftrivial-auto-var-init=zero/pattern (the init guard's builds, `--init`). For each,
whether every kernel's figures and code digest, and the -Wuninitialized count, are the same, and
the CPU seconds of the compiler processes (children's rusage: the machine may be loaded) per
build of both sides, interleaved.

`oracle`: per-test seconds of the resolved oracle of a case's flattened start file (as `reduce`
runs it), driver builds against the shared front end against an IR memo hit, interleaved, on
the original (interesting: both sides) and on a candidate with one more unused function (the
same IR: a memo hit once the original is known), and on a compile error.

    .venv/bin/python benchmarks/shared_front_end.py identity [--init] [--cases wgrad_tiny_pos,...]
    .venv/bin/python benchmarks/shared_front_end.py oracle corpora/mfconv_pos -n 3
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import resource
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.compiler import prefix_pch  # noqa: E402
from interestingness.compiler.compile import LTO, SIDES  # noqa: E402
from interestingness.oracle.spill import INIT_MODES, SpillSetup, measure, target_digests  # noqa: E402
from reducer.text.flatten import flatten, include_dirs  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cases(only: set[str] | None) -> list[tuple[str, Path, list[str]]]:
    found = []
    for d in sorted((ROOT / "corpora").iterdir()):
        if d.name.endswith(("_pos", "_neg")) and (d / "flags").exists():
            found.append((d.name, d / "repro.hip", shlex.split((d / "flags").read_text())))
    for f in sorted((ROOT / "corpora" / "rocm_style").glob("*.hip")):
        found.append((f"rocm_style/{f.stem}", f, ["-std=c++20"]))
    return [c for c in found if only is None or c[0] in only]


def same(a, b) -> tuple[bool, str]:
    """(a Measurement and b build every kernel the same on both sides, what differs)."""
    why = []
    for side in SIDES:
        ca, cb = a.compiled[side], b.compiled[side]
        if ca.ok != cb.ok:
            why.append(f"{side}: builds {ca.ok} vs {cb.ok} ({ca.message or cb.message})")
            continue
        if not ca.ok:
            continue
        kernels = list(a.metrics[side])
        if a.metrics[side] != b.metrics[side]:
            why.append(f"{side}: figures differ")
        if target_digests(ca.summary.digests, kernels) != target_digests(cb.summary.digests, kernels):
            why.append(f"{side}: code differs")
        if ca.uninitialized != cb.uninitialized:
            why.append(f"{side}: -Wuninitialized {ca.uninitialized} vs {cb.uninitialized}")
    return not why, "; ".join(why)


def timed(fn):
    cpu, wall = children_cpu(), time.monotonic()
    out = fn()
    return out, children_cpu() - cpu, time.monotonic() - wall


def identity(args) -> None:
    print("| case | bytes | kernels | shared: both sides same | with PCH | init zero/pattern (LTO code) "
          "| driver CPU s | shared CPU s | saved |")
    print("|---|---|---|---|---|---|---|---|---|")
    all_same = True
    totals = [0.0, 0.0]
    for name, path, flags in cases(set(args.cases.split(",")) if args.cases else None):
        text = path.read_bytes()
        if args.flatten:
            text, _ = flatten(path, text, include_dirs(flags, ROOT))
        driver = SpillSetup(path, flags, cwd=ROOT, hip_headers="shim").compiler
        shared = dataclasses.replace(driver, shared_front_end=True)
        (m, cpu_d, _), (s, cpu_s, _) = timed(lambda: measure(driver, text)), timed(lambda: measure(shared, text))
        ok, why = same(m, s)
        cells = ["yes" if ok else f"**no**: {why}"]
        if prefix_pch.applies(text):
            p_ok, p_why = same(m, measure(dataclasses.replace(shared, pch=True), text))
            cells.append("yes" if p_ok else f"**no**: {p_why}")
        else:
            p_ok = True
            cells.append("n/a")
        i_ok = True
        if args.init and m.compiled[LTO].ok:
            diffs = []
            kernels = list(m.metrics[LTO])
            for mode in INIT_MODES:
                flag = (f"-ftrivial-auto-var-init={mode}",)
                d = driver.compile(LTO, text, extra=flag)
                e = shared.build(text, flag).side(LTO)
                if d.ok != e.ok or (d.ok and (target_digests(d.summary.digests, kernels) !=
                                              target_digests(e.summary.digests, kernels)
                                              or d.summary.metrics != e.summary.metrics)):
                    diffs.append(mode)
            i_ok = not diffs
            cells.append("yes" if i_ok else f"**no**: {', '.join(diffs)}")
        else:
            cells.append("-")
        all_same &= ok and p_ok and i_ok
        totals[0] += cpu_d
        totals[1] += cpu_s
        kernels = len(m.kernel_names())
        print(f"| {name} | {len(text)} | {kernels} | {' | '.join(cells)} | {cpu_d:.2f} | {cpu_s:.2f} "
              f"| {cpu_d - cpu_s:.2f} ({(cpu_d - cpu_s) / cpu_d:.0%}) |", flush=True)
    print(f"\nall the same: {all_same}; CPU seconds of one build of both sides, summed: driver {totals[0]:.1f}, "
          f"shared {totals[1]:.1f} ({(totals[0] - totals[1]) / totals[0]:.0%} saved)")


# a template nobody instantiates: nothing of it reaches the IR
UNUSED = b"\ntemplate <typename T> __device__ T shared_front_end_unused(T x) { return x + x; }\n"


def oracle(args) -> None:
    flags = shlex.split((args.case / "flags").read_text())
    repro = args.case / "repro.hip"
    flat, _ = flatten(repro, repro.read_bytes(), include_dirs(flags, ROOT))
    setup = SpillSetup(repro, flags, cwd=ROOT, hip_headers="shim")
    resolved = setup.resolve(flat)
    print(f"{args.case.name}: {len(flat)} bytes flattened; the run's settings: {resolved.settings()}")
    if not resolved.compiler.shared_front_end:
        print("the original does not build the same with the shared front end: nothing to compare")
        return
    kinds = {}
    for variant in ("driver", "shared", "shared+memo"):
        o = copy.copy(resolved)
        o.compiler = dataclasses.replace(resolved.compiler, shared_front_end=variant != "driver")
        o.memo = resolved.memo if variant == "shared+memo" else None
        kinds[variant] = o
    candidates = {"the original (interesting)": flat,
                  "+ an unused function (same IR)": flat + UNUSED,
                  "a compile error": flat + b"\nint broken(\n"}
    resolved.test(flat)  # the memo knows the original's IR, as it does the current best's in a run
    rows: dict[tuple[str, str], list[float]] = {}
    verdicts: dict[tuple[str, str], set] = {}
    for _ in range(args.n):
        for what, text in candidates.items():
            for variant, o in kinds.items():
                v, cpu, wall = timed(lambda: o.test(text))
                rows.setdefault((what, variant), []).extend([cpu, wall])
                verdicts.setdefault((what, variant), set()).add((v.interesting, v.reason[:60]))
    print(f"{args.n} tests of each, interleaved; CPU s (children) / wall s per test")
    print("| candidate | driver | shared front end | shared + IR memo | verdicts equal |")
    print("|---|---|---|---|---|")
    for what in candidates:
        cells = []
        for variant in kinds:
            r = rows[what, variant]
            cells.append(f"{sum(r[0::2]) / args.n:.2f} / {sum(r[1::2]) / args.n:.2f}")
        equal = len({frozenset(verdicts[what, v]) for v in kinds}) == 1
        print(f"| {what} | {' | '.join(cells)} | {'yes' if equal else '**no**'} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command")
    i = sub.add_parser("identity")
    i.add_argument("--cases", help="comma-separated case names (default: all)")
    i.add_argument("--init", action="store_true", help="also the init guard's LTO builds")
    i.add_argument("--flatten", action="store_true", help="build the flattened files")
    o = sub.add_parser("oracle")
    o.add_argument("case", type=Path)
    o.add_argument("-n", type=int, default=3)
    args = ap.parse_args(sys.argv[1:] or ["identity"])
    (oracle if args.command == "oracle" else identity)(args)


if __name__ == "__main__":
    main()
