#!/usr/bin/env python3
"""`reduce ir` vs plain `llvm-reduce -j N --test script.sh` on the precodegen IR of a corpus case.

Both start from the same bitcode: the case built with full offload LTO and
`-Xoffload-linker --save-temps`, the partition whose kernel spills (`--from-source`: ours builds
it itself, with `reduce ir --from-source`). Ours uses the built-in IR oracle with its default
predicate and guards; llvm-reduce a shell script running the same llc command and checking,
with grep, what the default predicate checks (VGPRs spilled, Folded Spill/Reload code, the
original's v_mfma count, and the register budget: the original's `.vgpr_count`, architectural
VGPRs, launch bound and occupancy); `--old-predicate` leaves the budget out, as the default predicate did before issue
43. Both run at the same time, so both see the same load from other users of the machine; when
ours finishes, llvm-reduce is given up to --factor times our wall time in all and then stopped,
its best file so far measured. Our verdict cache starts empty.

The second table says whether each result kept the bug's register budget: the original's
budget attributes it lost, llc's figures on it, and whether ours' default predicate holds.

    .venv/bin/python benchmarks/ir_vs_llvm_reduce.py corpora/wgrad_c0_pos -j 2
    # the budget alone, quickly: the delta passes that touch attributes, the old predicate
    .venv/bin/python benchmarks/ir_vs_llvm_reduce.py corpora/wgrad_tiny_pos --from-source --old-predicate \
        --delta-passes attributes,target-features-attr --time-budget 5m
"""
from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.oracle.ir import LLC, IrInputError, IrOracle, find_llvm_tools, read_module  # noqa: E402
from interestingness.oracle.ir_budget import budget_attributes, differences  # noqa: E402
from interestingness.oracle.precodegen import build_precodegen  # noqa: E402
from reducer.ir.reduce import disassemble, instruction_count  # noqa: E402

SCRIPT = """#!/bin/bash
echo x >> {calls}
out=$({llc} "$1" 2>/dev/null) || exit 1
echo "$out" | grep -qE '^\\s+\\.vgpr_spill_count:\\s+[1-9]' || exit 1
echo "$out" | grep -qE 'Folded (Spill|Reload)' || exit 1
[ "$(echo "$out" | grep -cE '^\\s+v_mfma')" = {mfma} ] || exit 1
"""
BUDGET = """echo "$out" | grep -qE '^\\s+\\.vgpr_count:\\s+{vgpr_total}$' || exit 1
echo "$out" | grep -qE '^\\s+\\.max_flat_workgroup_size:\\s+{max_flat_workgroup_size}$' || exit 1
echo "$out" | grep -qE '^; NumVgprs: {vgpr}$' || exit 1
echo "$out" | grep -qE '^; Occupancy: {occupancy}$'
"""


def spilling_partition(case: Path, tools) -> tuple[bytes, IrOracle]:
    flags = shlex.split((case / "flags").read_text())
    built = build_precodegen(case / "repro.hip", flags)
    for bitcode in built.partitions:
        module, _ = read_module(bitcode, tools)
        try:
            return module, IrOracle(tools).resolve(module)
        except IrInputError:
            continue
    raise SystemExit(f"no partition of {case} spills under llc")


def budget_row(tool: str, oracle: IrOracle, module: bytes | None) -> str:
    """| tool | budget attributes lost | .vgpr_count | occupancy | launch bound | VGPRs spilled | ours' predicate |"""
    if module is None:
        return f"| {tool} | (no result) | | | | | |"
    assert oracle.target is not None and oracle.budget is not None
    lost = differences(oracle.budget, budget_attributes(disassemble(oracle, module), oracle.target))
    k = oracle.llc(LLC, module).kernels.get(oracle.target) or {}
    verdict = oracle.test(module)
    lost = [d if d.startswith("amdgpu-") else d.split(":")[0] for d in lost]  # (target-features: long)
    return (f"| {tool} | {'; '.join(lost) or 'none'} | {k.get('vgpr_total')} | {k.get('occupancy')} | "
            f"{k.get('max_flat_workgroup_size')} | {k.get('vgpr_spills')} | "
            f"{'holds' if verdict.interesting else 'fails: ' + verdict.reason.replace(oracle.target, 'K')[:160]} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--factor", type=float, default=2.0, help="stop llvm-reduce after this many times our wall time")
    ap.add_argument("--delta-passes", help="run only these delta passes on both sides (a quick check of this script)")
    ap.add_argument("--from-source", action="store_true", help="ours: reduce ir --from-source on the case's repro.hip")
    ap.add_argument("--old-predicate", action="store_true",
                    help="llvm-reduce's test: spills and the MFMA count only, without the register budget")
    ap.add_argument("--time-budget", help="ours: reduce ir --time-budget (its best so far when it runs out)")
    args = ap.parse_args()
    tools = find_llvm_tools()
    os.chdir(ROOT)
    module, oracle = spilling_partition(args.case, tools)
    assert oracle.original is not None
    figures = oracle.original[LLC] or {}
    with tempfile.TemporaryDirectory(prefix="irbench-") as d:
        work = Path(d)
        (work / "input.bc").write_bytes(module)
        start_count = instruction_count(disassemble(oracle, module))
        calls = work / "calls"
        calls.touch()
        llc = shlex.join(oracle.command(LLC)[:-1])  # reads the candidate file instead of stdin
        script = work / "test.sh"
        script.write_text(SCRIPT.format(calls=calls, llc=llc, mfma=figures["mfma"])
                          + ("" if args.old_predicate else BUDGET.format(**figures)))
        script.chmod(0o755)
        plain_out = work / "plain.bc"
        start = time.monotonic()
        passes = [f"--delta-passes={args.delta_passes}"] if args.delta_passes else []
        plain = subprocess.Popen([tools.llvm_reduce, f"-j={args.jobs}", f"--test={script}", *passes, "-o",
                                  str(plain_out), str(work / "input.bc")], cwd=work, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        plain_end: list[float] = []  # when llvm-reduce exits, even while ours still runs
        waiter = threading.Thread(target=lambda: (plain.wait(), plain_end.append(time.monotonic())), daemon=True)
        waiter.start()
        source = (["--from-source", str(args.case / "repro.hip")] if args.from_source else [str(work / "input.bc")])
        ours = subprocess.run([sys.executable, "-m", "reducer.cli", "ir", *source, "-o",
                               str(work / "ours.ll"), "-j", str(args.jobs), "--cache-dir", str(work / "cache"),
                               *(["--llvm-reduce-flags", *passes] if passes else []),
                               *(["--time-budget", args.time_budget] if args.time_budget else []),
                               *(["--", *shlex.split((args.case / "flags").read_text())] if args.from_source else [])],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        ours_wall = time.monotonic() - start
        if ours.returncode not in (0, 7):  # 7: its time budget used, its best so far written
            plain.kill()
            raise SystemExit(f"ours failed: {ours.stderr[-2000:]}")
        waiter.join(timeout=max(0.0, args.factor * ours_wall - (time.monotonic() - start)))
        finished = bool(plain_end)
        if not finished:
            os.killpg(plain.pid, signal.SIGTERM)
            waiter.join()
        plain_wall = plain_end[0] - start
        summary = {line.split()[0]: line for line in ours.stderr.splitlines() if line.startswith("  ")}
        ours_tests = summary["tests"].split()[1] if "tests" in summary else "?"  # (no summary after a time budget)
        ours_memo = summary["tests"].split(", ")[1].split()[0] if "tests" in summary else "?"
        plain_module = plain_out.read_bytes() if plain_out.exists() else None
        ours_module, _ = read_module((work / "ours.ll").read_bytes(), tools)
        plain_count = instruction_count(disassemble(oracle, plain_module)) if plain_module else None
        rows = [("ours (reduce ir)", instruction_count((work / "ours.ll").read_text()),
                 f"{ours_tests} (+{ours_memo} from memory)", ours_wall,
                 "yes" if ours.returncode == 0 else "time budget used"),
                ("llvm-reduce", plain_count, str(sum(1 for _ in calls.open())), plain_wall,
                 "yes" if finished else "stopped")]
        print(f"input: {args.case} precodegen IR, kernel {oracle.target}, {start_count} instructions; "
              f"ours' predicate: {oracle.bound_predicate().shown()}; llvm-reduce's test: "
              f"{'spills, MFMA count (the old predicate)' if args.old_predicate else 'the same, by grep'}"
              f"{'; delta passes ' + args.delta_passes if args.delta_passes else ''}\n")
        print(f"| tool | instructions (input {start_count}) | tests run | wall s (-j {args.jobs}) | finished |")
        print("|---|---|---|---|---|")
        for tool, count, tests, wall, done in rows:
            print(f"| {tool} | {count} | {tests} | {wall:.0f} | {done} |")
        print(f"\nthe register budget (original: .vgpr_count {figures['vgpr_total']}, occupancy "
              f"{figures['occupancy']}, launch bound {figures['max_flat_workgroup_size']}, "
              f"{figures['vgpr_spills']} VGPRs spilled)\n")
        print("| tool | budget attributes lost | .vgpr_count | occupancy | launch bound | VGPRs spilled "
              "| ours' predicate |")
        print("|---|---|---|---|---|---|---|")
        print(budget_row("ours (reduce ir)", oracle, ours_module))
        print(budget_row("llvm-reduce", oracle, plain_module))
        if "steps" in summary:
            print("\nours, step by step:\n" + summary["steps"].strip())
        print(ours.stderr[-1500:] if ours.returncode else "")
        print((work / "ours.ll").read_text()[:4000])


if __name__ == "__main__":
    main()
