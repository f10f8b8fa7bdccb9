"""The IR that full offload LTO hands to codegen, for `reduce ir --from-source`.

One LTO build with `-Xoffload-linker --save-temps` (never the driver's `-save-temps`, which
disables the device pre-link optimisation) leaves `out.s.N.5.precodegen.bc`, one module per LTO
partition, beside the partitions' assembly. The flags go through the source oracle's Compiler,
so this is the very build the spill oracle measures, and its assembly says what llc on the
bitcode must reproduce.
"""
from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from interestingness.compiler.compile import LTO
from interestingness.measure.metrics import Metrics, analyse
from interestingness.oracle.spill import SpillSetup

_PARTITION = re.compile(r"\.(\d+)\.5\.precodegen\.bc$")


class PrecodegenError(RuntimeError):
    """The source does not build under full offload LTO, or the build left no precodegen IR."""


@dataclass(frozen=True)
class Precodegen:
    partitions: tuple[bytes, ...]  # bitcode of each LTO partition, in partition order
    lto: dict[str, Metrics]  # every kernel's figures in the LTO build's own assembly


def build_precodegen(source: str | os.PathLike, flags: Sequence[str], clang: str | None = None,
                     timeout: float = 300.0, tmp_dir: str | os.PathLike | None = None) -> Precodegen:
    compiler = SpillSetup(source, flags, clang, timeout=timeout, tmp_dir=tmp_dir).compiler
    compiled = replace(compiler, keep_artifacts=True).compile(LTO, Path(source).read_bytes(), emit="precodegen")
    try:
        if not compiled.ok:
            raise PrecodegenError(f"the source does not build with full offload LTO ({compiled.failure}): "
                                  f"{compiled.message}")
        assert compiled.artifacts is not None  # kept: keep_artifacts
        partitions = {p: int(m.group(1)) for p in Path(compiled.artifacts).iterdir()
                      if (m := _PARTITION.search(p.name))}
        files = sorted(partitions, key=partitions.__getitem__)
        if not files:
            raise PrecodegenError(f"the LTO build left no *.precodegen.bc (command: {' '.join(compiled.command)})")
        return Precodegen(tuple(p.read_bytes() for p in files), analyse(compiled.asm))
    finally:
        if compiled.artifacts:
            shutil.rmtree(compiled.artifacts, ignore_errors=True)
