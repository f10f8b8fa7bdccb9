"""The result of `reduce ir` as an LLVM lit test: the reduced module under RUN lines that pipe it
through llc into FileCheck, with CHECK lines read from llc's actual output on the spill evidence
(a spill store, ScratchSize, the metadata's spill count) and on the register budget it spills
against (occupancy, the launch bound, the VGPR allocation: a spill at another budget is another
bug). `verify` runs the RUN lines the way lit does (bash, pipefail, %s substituted, the LLVM
tools first on PATH) before a file is called a result."""
from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from interestingness.base.process import run
from interestingness.measure.metrics import FunctionAsm, parse_kernels
from interestingness.oracle.ir import ALT, LLC, IrOracle

PREFIXES = {LLC: "CHECK", ALT: "ALT"}
_NONZERO = "{{[1-9][0-9]*}}"


def lit_test(oracle: IrOracle, module_text: str, asm: dict[str, str]) -> str:
    """The .ll text: header (RUN and CHECK lines per side), then the module. `asm` is llc's output
    on this very module, per side."""
    assert oracle.target is not None, "an oracle resolve() gave"
    header = [f"; Reduced by `reduce ir`: kernel {oracle.target}", f"; predicate: {oracle.bound_predicate().shown()}"]
    if oracle.budget:
        header.append("; register budget, kept from the original: " + ", ".join(
            f'"{k}"' + (f'="{v}"' if k != "target-features" else f" ({len(v.split(','))} features)")
            for k, v in oracle.budget.items()))
    for side in oracle.sides():
        args = " ".join(shlex.quote(a) for a in oracle.command(side)[1:-3])  # no llc path, no "-o - -"
        prefix = "" if side == LLC else f" --check-prefix={PREFIXES[side]}"
        header.append(f"; RUN: llc {args} < %s | FileCheck{prefix} %s")
    for side in oracle.sides():
        header += [""] + check_lines(PREFIXES[side], oracle.target, asm[side])
    return "\n".join(header) + "\n\n" + module_text


def check_lines(prefix: str, kernel: str, asm: str) -> list[str]:
    """In output order: the kernel's label, its first spill store (or that there is none), the end
    of its body, its architectural VGPRs, ScratchSize and the occupancy (those two when llc
    resolves them), then from the metadata the launch bound, the VGPR allocation and the VGPR
    spill count: the spill and the register budget it spills against. When the spill code is a
    function's the kernel calls (and not the kernel's own), that function's label, first spill
    store and end too, where the output has them."""
    graph = next(k for k in parse_kernels(asm) if k.name == kernel)
    spiller = next((f for f in graph.functions if any("Folded Spill" in i.comment for i in f.body)), graph.function)
    scratch = int(graph.info.get("ScratchSize", "0"))
    spills = int(graph.meta.get("vgpr_spill_count", "0"))
    occupancy, vgprs = graph.info.get("Occupancy", ""), graph.info.get("NumVgprs", "")
    blocks = {kernel: [*_function_lines(prefix, spiller if spiller is graph.function else None, kernel),
                       *([f"; {prefix}: ; NumVgprs: {vgprs}{{{{$}}}}"] if vgprs.isdigit() else []),
                       f"; {prefix}: ; ScratchSize: " + (_NONZERO if scratch else "0{{$}}"),
                       *([f"; {prefix}: ; Occupancy: {occupancy}{{{{$}}}}"] if occupancy.isdigit() else [])]}
    if spiller is not graph.function:
        blocks[spiller.name] = _function_lines(prefix, spiller, spiller.name)
    order = sorted(blocks, key=lambda name: _label_at(asm, name))
    return [*(line for name in order for line in blocks[name]),
            f"; {prefix}: .max_flat_workgroup_size: {graph.meta['max_flat_workgroup_size']}{{{{$}}}}",
            f"; {prefix}: .vgpr_count: {graph.meta['vgpr_count']}{{{{$}}}}",
            f"; {prefix}: .vgpr_spill_count: " + (_NONZERO if spills else "0{{$}}")]


def _function_lines(prefix: str, spiller: FunctionAsm | None, name: str) -> list[str]:
    """A function's label, its first spill store (`spiller`: the function, when it spills) or
    that it has none, and its end."""
    spill = next((i for i in spiller.body if "Folded Spill" in i.comment), None) if spiller else None
    return [f"; {prefix}-LABEL: {{{{^}}}}{name}:",
            f"; {prefix}: {spill.mnemonic} {{{{.*}}}} Folded Spill" if spill else f"; {prefix}-NOT: Folded Spill",
            f"; {prefix}: {{{{^}}}}.Lfunc_end"]


def _label_at(asm: str, name: str) -> int:
    m = re.search(rf'^"?{re.escape(name)}"?:', asm, re.M)
    return m.start() if m else len(asm)


def verify(path: Path, bindir: str, timeout: float = 300.0) -> str | None:
    """None when every RUN line of `path` passes; else what failed."""
    runs = [line.split("RUN:", 1)[1].strip() for line in path.read_text().splitlines() if line.startswith("; RUN:")]
    if not runs:
        return f"{path} has no RUN line"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    for cmd in runs:
        cmd = cmd.replace("%s", shlex.quote(str(path.resolve())))
        res = run(["bash", "-o", "pipefail", "-c", cmd], cwd=path.parent, timeout=timeout, env=env)
        if res.returncode != 0:
            return f"RUN line failed ({res.returncode}): {cmd}\n{res.stderr.strip()[:2000]}"
    return None
