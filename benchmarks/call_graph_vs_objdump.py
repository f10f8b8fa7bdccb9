#!/usr/bin/env python3
"""Issue 44's check on any input: each kernel's figures, as the oracle reads them (its call graph
in the assembly), beside an independent count over `llvm-objdump -d` of the device object (the
count tests/test_call_graph.py checks on its own kernels: calls followed from the s_getpc_b64 /
s_add_u32 / s_addc_u32 arithmetic before each s_swappc_b64).

    .venv/bin/python benchmarks/call_graph_vs_objdump.py FILE -- CLANG_FLAGS...
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_call_graph import _graph_by_objdump  # noqa: E402

from interestingness.base.process import run  # noqa: E402
from interestingness.compiler.compile import OBJ_OUT, SIDES, Compiler, prepare_flags  # noqa: E402
from interestingness.compiler.toolchain import find_toolchain  # noqa: E402
from interestingness.measure.metrics import analyse  # noqa: E402

COUNTED = ("instructions", "mfma", "scratch_ops", "calls", "vmcnt0")


def main(argv: list[str]) -> int:
    if len(argv) < 1 or (argv[1:2] and argv[1] != "--"):
        print(__doc__, file=sys.stderr)
        return 2
    src, flags = Path(argv[0]), argv[2:]
    tc = find_toolchain()
    comp = Compiler(tc, prepare_flags(flags, Path.cwd())[0], src.name, str(src.parent.resolve()), timeout=900)
    text, differ = src.read_bytes(), 0
    with tempfile.TemporaryDirectory(prefix="call-graph-") as tmp:
        for side in SIDES:
            asm = comp.compile(side, text)
            work = Path(tmp, side)
            work.mkdir()
            (work / src.name).write_bytes(text)
            obj = run(comp.command(side, emit="obj"), cwd=work, timeout=900)
            if not asm.ok or obj.returncode:
                print(f"{side}: does not build: {asm.message or obj.stderr}", file=sys.stderr)
                return 1
            for kernel, got in analyse(asm.asm).items():
                bodies, names, indirect = _graph_by_objdump(tc, work / OBJ_OUT, kernel)
                code = [i for body in bodies for i in body]
                counted = {"instructions": len(code), "mfma": sum(m.startswith("v_mfma") for _, m, _ in code),
                           "scratch_ops": sum(m.startswith("scratch_") for _, m, _ in code),
                           "calls": sum(m == "s_swappc_b64" for _, m, _ in code),
                           "vmcnt0": sum(m == "s_waitcnt" and "vmcnt(0)" in " ".join(o) for _, m, o in code)}
                same = all(got[k] == counted[k] for k in COUNTED)
                differ += not same
                print(f"{side} {kernel}: {len(names)} function(s), {indirect} indirect call(s)")
                for k in COUNTED:
                    print(f"  {k:13} oracle {got[k]:>7}  objdump {counted[k]:>7}")
                print("  the same" if same else "  DIFFERENT")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
