"""`reduce check`: both sides of one file, every kernel, side by side (no laziness, no targets
needed), so a user can see why a file is or is not interesting before reducing it."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from interestingness.bundle import Tree
from interestingness.compile import LTO, NOLTO, SIDES, user_dirs
from interestingness.metrics import METRICS, demangle
from interestingness.predicates import DEFAULT_PREDICATE
from interestingness.spill import SpillSetup, focused


def run_check(
    path: str | os.PathLike,
    flags: Sequence[str],
    *,
    clang: str | os.PathLike | None = None,
    kernel: str | Sequence[str] | None = None,
    predicate: str | None = None,
    timeout: float = 300.0,
    content: bytes | None = None,
    tree: Tree | None = None,
    hip_headers: str = "auto",
    init_guard: bool = True,
    focus: bool = True,
) -> dict[str, Any]:
    """JSON-ready report. `interesting`: the predicate holds for every kernel `kernel` selects
    (at least one), or with no `kernel`, for at least one kernel (what seeding a reduction needs).
    `content` is built in place of the file's own bytes, as the oracle builds a candidate; with
    `tree` it is a file set of that tree (interestingness.bundle). `targets`: the kernels a
    reduction of the file would keep interesting (one of them with `focus`, as runs do)."""
    names = [kernel] if isinstance(kernel, str) else list(kernel or [])
    setup = SpillSetup(path, flags, clang, predicate or DEFAULT_PREDICATE, names or None, timeout, tree=tree,
                       hip_headers=hip_headers)
    source = Path(path).read_bytes() if content is None else content
    m = setup.measure(source)
    hip = setup.compiler.hip_headers
    mine = [*user_dirs(setup.compiler.flags), setup.compiler.source_dir]
    # every header the build reads from outside the candidate, and who provides it (yours, ROCm, shim, system)
    headers = [{"header": h, "from": hip.origin(h, mine)} for h in setup.compiler.headers(source)]
    all_kernels = m.kernel_names()
    selected = ([k for found in setup.match(m, names).values() for k in found] if names else all_kernels)
    plain = demangle(all_kernels, setup.toolchain)
    kernels: list[dict[str, Any]] = []
    for k in all_kernels:
        ok, why = setup.kernel_verdict(m, k)
        kernels.append({"name": k, "demangled": plain[k], "selected": k in selected,
                        **{side: (m.metrics[side] or {}).get(k) for side in SIDES},
                        "interesting": ok, "reason": why})
    verdicts = [k["interesting"] for k in kernels if k["selected"]]
    showing = [k["name"] for k in kernels if k["selected"] and k["interesting"]]
    tc = setup.toolchain
    chosen = [k["name"] for k in kernels if k["selected"]]
    init = setup.init_differences(source, m.compiled[LTO].asm, chosen) if init_guard and chosen else {}
    return {
        "toolchain": {"clang": tc.clang, "version": tc.version, "commit": tc.commit, "affected": tc.affected},
        "interesting": bool(verdicts) and (all(verdicts) if names else any(verdicts)),
        "predicate": setup.predicate.source,
        "kernel_filter": names or None,
        "flags": list(setup.compiler.flags),
        "dropped_flags": list(setup.dropped_flags),
        "headers": headers,
        "hip_headers": {"mode": hip.mode, "description": hip.describe(), "flags": list(hip.before),
                        "used": [h for h in headers if f"{os.sep}hip{os.sep}" in h["header"]]},
        "compiles": {side: {"ok": c.ok, "seconds": round(c.seconds, 3), "failure": c.failure,
                            "message": c.message, "command": list(c.command),
                            "by_hand": setup.compiler.by_hand(side, path), "uninitialized": c.uninitialized}
                     for side, c in m.compiled.items()},
        "kernels": kernels,
        "init_guard": init,  # -ftrivial-auto-var-init mode -> how the selected kernels' LTO code differs, "" if not
        "targets": list(focused(m, showing, len(names), focus)),
        "showing_effect": showing,
    }


def format_check(report: dict[str, Any]) -> str:
    tc = report["toolchain"]
    lines = [f"toolchain: {tc['version']} ({tc['clang']}; commit {tc['commit'] or 'unknown'}; "
             f"full offload LTO by default: {'yes' if tc['affected'] else 'no'})"]
    if report["dropped_flags"]:
        lines.append(f"ignored flags: {' '.join(report['dropped_flags'])}")
    hip = report["hip_headers"]
    lines.append(f"HIP headers: {hip['description']}")
    lines += [f"  {h['header']} ({h['from']})" for h in hip["used"]]
    for side, c in report["compiles"].items():
        state = f"ok in {c['seconds']:.2f}s" if c["ok"] else (f"{c['failure']}:\n{c['message']}\n"
                                                             f"to run it by hand: {c['by_hand']}")
        if c["uninitialized"]:
            state += f", {c['uninitialized']} -Wuninitialized warning(s): undefined behaviour"
        lines.append(f"compile {side}: {state}")
    width = max(len(m.label) for m in METRICS)
    for k in report["kernels"]:
        if not k["selected"]:
            continue
        lines += ["", f"kernel {k['demangled']}", f"  ({k['name']})",
                  f"  {'':<{width}}  {LTO:>8} | {NOLTO:<8}"]
        for m in METRICS:
            a, b = ((k[side] or {}).get(m.name) for side in SIDES)
            mark = "  *" if a != b else ""
            lines.append(f"  {m.label:<{width}}  {_cell(a):>8} | {_cell(b):<8}{mark}")
        lines.append(f"  -> {'interesting' if k['interesting'] else 'not interesting: ' + k['reason']}")
    if not any(k["selected"] for k in report["kernels"]):
        lines += ["", "no kernels" + (f" matching {report['kernel_filter']}" if report["kernel_filter"] else "")]
    names = {k["name"]: k["demangled"] for k in report["kernels"]}
    if report.get("targets"):
        lines += ["", "a reduction targets: " + ", ".join(names.get(t, t) for t in report["targets"])]
        others = [k for k in report.get("showing_effect", []) if k not in report["targets"]]
        if others:
            lines.append(f"  (focus: one of the {len(others) + 1} kernels that show the effect; the others may be "
                         f"deleted: {', '.join(names.get(k, k) for k in others)}; --all-targets keeps them all)")
    lines += ["", f"predicate: {report['predicate']}",
              f"verdict: {'INTERESTING' if report['interesting'] else 'not interesting'}"]
    for mode, diff in report.get("init_guard", {}).items():
        lines.append(f"with -ftrivial-auto-var-init={mode}: " + (f"{diff}: reads an automatic variable before "
                     "writing it" if diff else "the same code (LTO side), so the same verdict"))
    return "\n".join(lines)


def _cell(v: Any) -> str:
    return "-" if v is None else str(v)
