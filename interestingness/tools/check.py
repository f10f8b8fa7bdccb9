"""`reduce check`: both sides of one file, every kernel, side by side (no laziness, no targets
needed), so a user can see why a file is or is not interesting before reducing it; with an
original (`against`), the original's figures beside them, and the predicate and the UB guard as a
reduction of that original would apply them."""
from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interestingness.base.bundle import Tree
from interestingness.compiler.compile import user_dirs
from interestingness.compiler.sides import DEFAULT_SIDES, Side
from interestingness.measure.metrics import METRICS, KernelAsm, call_graphs, demangle, function_figures
from interestingness.measure.predicates import SIDE_NAMES
from interestingness.oracle import ubsan
from interestingness.oracle.spill import Measurement, SpillSetup, base_name, focused


@dataclass
class Built:
    """One file's builds for a check, made once: both sides measured and, with the UB guard, its
    sanitizer-check build (None, why) otherwise."""
    path: str | os.PathLike
    setup: SpillSetup
    source: bytes
    measured: Measurement
    sanitized: tuple[dict[str, ubsan.Profile] | None, str]


def build(path: str | os.PathLike, flags: Sequence[str], *, clang: str | os.PathLike | None = None,
          names: Sequence[str] = (), predicate: str | None = None, timeout: float = 300.0,
          content: bytes | None = None, tree: Tree | None = None, hip_headers: str = "auto", ub_guard: bool = True,
          sides: tuple[Side, Side] = DEFAULT_SIDES) -> Built:
    """The builds `run_check` reports on: `content` (else the file's own bytes) as `path` with `flags`."""
    setup = SpillSetup(path, flags, clang, predicate, list(names) or None, timeout, tree=tree, hip_headers=hip_headers,
                       sides=sides)
    source = Path(path).read_bytes() if content is None else content
    return Built(path, setup, source, setup.measure(source), setup.sanitized(source) if ub_guard else (None, ""))


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
    ub_guard: bool = True,
    focus: bool = True,
    against: str | os.PathLike | None = None,
    against_content: bytes | None = None,
    sides: tuple[Side, Side] = DEFAULT_SIDES,
) -> dict[str, Any]:
    """JSON-ready report. `interesting`: the predicate holds for every kernel `kernel` selects
    (at least one), or with no `kernel`, for at least one kernel (what seeding a reduction needs).
    `content` is built in place of the file's own bytes, as the oracle builds a candidate; with
    `tree` it is a file set of that tree (interestingness.base.bundle). `targets`: the kernels a
    reduction of the file would keep interesting (one of them with `focus`, as runs do).
    `against`: the original of a reduction (built with the same flags; `against_content` in place
    of its bytes): its figures go beside each kernel's (`original`, the kernel of the same name,
    or else of the same base name), the predicate reads them for its orig.* names (without it,
    the file is its own original) and the UB guard's sanitizer checks are compared with its
    (`ub_guard`: what they say of each kernel, `violation`). `sides`: the two builds compared
    (interestingness/compiler/sides.py); the report's per-side figures are under their names."""
    names = [kernel] if isinstance(kernel, str) else list(kernel or [])
    common: dict[str, Any] = dict(clang=clang, predicate=predicate, timeout=timeout, tree=tree,
                                  hip_headers=hip_headers, ub_guard=ub_guard, sides=sides)
    built = build(path, flags, names=names, content=content, **common)
    original = build(against, flags, content=against_content, **common) if against is not None else None
    return report(built, names, original, against, init_guard=init_guard, ub_guard=ub_guard, focus=focus)


def check_pair(path: str | os.PathLike, flags: Sequence[str], content: bytes, original: bytes, kernels: Sequence[str],
               *, init_guard: bool = True, ub_guard: bool = True, **common: Any) -> tuple[dict[str, Any], dict]:
    """`run_check` of a reduction's original and of its result against it, each file built once and
    the two side by side (one thread each): the reports a run ends with. `common`: `build`'s
    other arguments."""
    names = list(kernels)
    with ThreadPoolExecutor(2) as pool:
        theirs = pool.submit(build, path, flags, names=names, content=original, ub_guard=ub_guard, **common)
        mine = build(path, flags, names=names, content=content, ub_guard=ub_guard, **common)
        orig = theirs.result()
        orig_report = pool.submit(report, orig, names, None, None, init_guard=init_guard, ub_guard=ub_guard)
        result_report = report(mine, names, orig, path, init_guard=init_guard, ub_guard=ub_guard)
        return orig_report.result(), result_report


def report(built: Built, names: Sequence[str], original: Built | None, against: str | os.PathLike | None, *,
           init_guard: bool = True, ub_guard: bool = True, focus: bool = True) -> dict[str, Any]:
    """`run_check`'s report of `built`, beside `original` (built from the file `against`) if given."""
    setup, source, m, sanitized = built.setup, built.source, built.measured, built.sanitized
    side_names = setup.compiler.side_names
    path = built.path
    orig_sanitized = original.sanitized if original is not None and ub_guard else (None, "")
    hip = setup.compiler.hip_headers
    mine = [*user_dirs(setup.compiler.flags), setup.compiler.source_dir]
    # every header the build reads from outside the candidate, and who provides it (yours, ROCm, shim, system)
    headers = [{"header": h, "from": hip.origin(h, mine)} for h in setup.compiler.headers(source)]
    all_kernels = m.kernel_names()
    selected = ([k for found in setup.match(m, names).values() for k in found] if names else all_kernels)
    graphs = {side: {g.name: g for g in call_graphs(c.asm)} if c.ok else {} for side, c in m.compiled.items()}
    called = {f.name for side in side_names for g in graphs[side].values() for f in g.reached}
    plain = demangle([*all_kernels, *sorted(called - set(all_kernels))], setup.toolchain)
    kernels: list[dict[str, Any]] = []
    for k in all_kernels:
        entry: dict[str, Any] = {"name": k, "demangled": plain[k], "selected": k in selected,
                                 **{side: (m.metrics[side] or {}).get(k) for side in side_names},
                                 "call_graph": {side: _call_graph(graphs[side].get(k), plain) for side in side_names}}
        tables = None
        if original is not None:
            measured = original.measured
            match = _match(k, measured.kernel_names())
            entry["original"] = {"name": match, **{side: (measured.metrics[side] or {}).get(match) if match else None
                                                   for side in side_names}}
            tables = {side: entry["original"][side] for side in side_names}
        ok, why = setup.kernel_verdict(m, k, tables)
        if original is not None and entry["original"]["name"] is None:
            ok, why = False, f"kernel {k} missing in the original {against}"
        bound = setup.predicate.bind(tables if tables is not None else {s: entry[s] for s in side_names})
        entry.update(interesting=ok, reason=why, predicate=bound.shown())
        if sanitized[0] is not None:
            found = sanitized[0].get(k)
            entry["ub_guard"] = found.to_json() if found else None
            if orig_sanitized[0] is not None and entry["original"]["name"]:
                theirs = orig_sanitized[0].get(entry["original"]["name"])
                entry["ub_guard_violation"] = ubsan.violation(theirs, found) if theirs else None
        kernels.append(entry)
    verdicts = [k["interesting"] for k in kernels if k["selected"]]
    showing = [k["name"] for k in kernels if k["selected"] and k["interesting"]]
    tc = setup.toolchain
    chosen = [k["name"] for k in kernels if k["selected"]]
    init = setup.init_differences(source, m.compiled[side_names[0]].asm, chosen) if init_guard and chosen else {}
    return {
        "toolchain": {"clang": tc.clang, "version": tc.version, "commit": tc.commit, "affected": tc.affected},
        "against": os.fspath(against) if against is not None else None,
        "interesting": bool(verdicts) and (all(verdicts) if names else any(verdicts)),
        "predicate": setup.predicate.source,
        "sides": [s.to_json() for s in setup.compiler.sides],
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
        # the UB guard's sanitizer checks: the checks, and why their build failed ("" if it did not)
        "ub_guard": {"checks": list(ubsan.CHECKS), "failure": sanitized[1] or orig_sanitized[1]} if ub_guard else None,
        "targets": list(focused(m, showing, len(names), focus)),
        "showing_effect": showing,
    }


def _call_graph(graph: KernelAsm | None, plain: dict[str, str]) -> dict[str, Any] | None:
    """What a kernel's figures were summed over, when it calls anything: each function of its call
    graph with its own figures (the kernel first), the called symbols the build does not define
    and the calls through a computed address (neither's code is counted)."""
    if graph is None or (not graph.reached and graph.complete):
        return None
    return {"functions": [{"name": n, "demangled": plain.get(n, n), "figures": f} for n, f in function_figures(graph)],
            "undefined": list(graph.undefined), "indirect": graph.indirect}


def _match(kernel: str, originals: Sequence[str]) -> str | None:
    """The original's kernel a kernel of a reduction comes from: the same mangled name, or else
    the only one of the same base name (a reduction renames: an instantiated template, a
    deleted parameter)."""
    if kernel in originals:
        return kernel
    same = [o for o in originals if base_name(o) == base_name(kernel)]
    return same[0] if len(same) == 1 else None


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
    against = report.get("against")
    side_names = [s["name"] for s in report["sides"]] if report.get("sides") else list(SIDE_NAMES)
    first, second = side_names
    for k in report["kernels"]:
        if not k["selected"]:
            continue
        lines += ["", f"kernel {k['demangled']}", f"  ({k['name']})"]
        if against:
            lines += [f"  original: {against}" + (f" (kernel {k['original']['name']})"
                                                  if k["original"]["name"] not in (None, k["name"]) else ""),
                      f"  {'':<{width}}  {first:>8} | {second:<8} || {'orig ' + first:>9} | {'orig ' + second:<10}"]
        else:
            lines.append(f"  {'':<{width}}  {first:>8} | {second:<8}")
        for m in METRICS:
            a, b = ((k[side] or {}).get(m.name) for side in side_names)
            mark = "  *" if a != b else ""
            row = f"  {m.label:<{width}}  {_cell(a):>8} | {_cell(b):<8}"
            if against:
                c, d = ((k["original"][side] or {}).get(m.name) for side in side_names)
                row += f" || {_cell(c):>9} | {_cell(d):<10}"
            lines.append(row + mark)
        for side in side_names:
            lines += _call_graph_lines(side, (k.get("call_graph") or {}).get(side))
        lines.append(f"  -> {'interesting' if k['interesting'] else 'not interesting: ' + k['reason']}")
        if k.get("ub_guard") is not None:
            lines.append(f"  sanitizer checks: {ubsan.Profile.from_json(k['ub_guard']).describe()}")
        if k.get("ub_guard_violation") is not None:
            lines.append("  UB guard: " + (f"refused: {k['ub_guard_violation']}" if k["ub_guard_violation"]
                                           else "no undefined behaviour the original's kernel has not"))
    if not any(k["selected"] for k in report["kernels"]):
        lines += ["", "no kernels" + (f" matching {report['kernel_filter']}" if report["kernel_filter"] else "")]
    names = {k["name"]: k["demangled"] for k in report["kernels"]}
    if report.get("targets"):
        lines += ["", "a reduction targets: " + ", ".join(names.get(t, t) for t in report["targets"])]
        others = [k for k in report.get("showing_effect", []) if k not in report["targets"]]
        if others:
            lines.append(f"  (focus: one of the {len(others) + 1} kernels that show the effect; the others may be "
                         f"deleted: {', '.join(names.get(k, k) for k in others)}; --all-targets keeps them all)")
    shown = {k["predicate"] for k in report["kernels"] if k["selected"]}
    lines += ["", f"predicate: {shown.pop() if len(shown) == 1 else report['predicate']}",
              f"verdict: {'INTERESTING' if report['interesting'] else 'not interesting'}"]
    if report.get("ub_guard") and report["ub_guard"]["failure"]:
        lines.append(f"the sanitizer checks ({','.join(report['ub_guard']['checks'])}) do not build: "
                     f"{report['ub_guard']['failure']}")
    for mode, diff in report.get("init_guard", {}).items():
        lines.append(f"init guard: the file {diff}" if diff else
                     f"with -ftrivial-auto-var-init={mode}: the same code (LTO side), so the same verdict")
    return "\n".join(lines)


# the figures shown per function of a call graph (the JSON has every metric)
_GRAPH_COLUMNS = ("instructions", "mfma", "scratch_ops", "spill_ops", "loop_spill_ops", "vmcnt0", "vgpr_spills",
                  "calls", "vgpr", "scratch_size")


def _call_graph_lines(side: str, graph: dict[str, Any] | None) -> list[str]:
    if graph is None:
        return []
    functions = graph["functions"]
    lines = [f"  {side}: the counts above are summed over the kernel and the {len(functions) - 1} function(s) it "
             "calls,",
             "    VGPRs, AGPRs, SGPRs and ScratchSize are the kernel's (they cover its callees); each function alone:"]
    labels = {m.name: m.label for m in METRICS}
    widths = [max(len(labels[c]), 5) for c in _GRAPH_COLUMNS]
    lines.append("    " + "  ".join(f"{labels[c]:>{w}}" for c, w in zip(_GRAPH_COLUMNS, widths)) + "  function")
    for i, f in enumerate(functions):
        cells = "  ".join(f"{_cell(f['figures'].get(c)):>{w}}" for c, w in zip(_GRAPH_COLUMNS, widths))
        lines.append(f"    {cells}  {f['demangled']}" + (" (the kernel itself)" if i == 0 else ""))
    if graph["undefined"]:
        lines.append(f"    not in the code object, not counted: {', '.join(graph['undefined'])}")
    if graph["indirect"]:
        lines.append(f"    {graph['indirect']} indirect call(s) (a computed address): their targets are not counted")
    return lines


def _cell(v: Any) -> str:
    return "-" if v is None else str(v)
