"""Per-kernel figures read from AMDGPU assembly: the one table of every metric the oracle knows.

Sources inside the asm, per kernel: the metadata YAML (`.amdgpu_metadata`, same content as the
object's NT_AMDGPU_METADATA note; always resolved numbers), the `; Kernel info:` comments (may be
symbolic expressions when the kernel makes indirect calls) and the instructions between the
kernel's label and its `.Lfunc_end` (the kernel body only, not non-inlined callees).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from interestingness.process import run
from interestingness.toolchain import Toolchain


@dataclass(frozen=True)
class Instruction:
    mnemonic: str
    operands: str
    comment: str


@dataclass(frozen=True)
class KernelAsm:
    name: str  # mangled
    meta: dict[str, str]  # metadata YAML scalars, keys without the leading dot
    info: dict[str, str]  # "; Kernel info:" comments
    body: tuple[Instruction, ...]
    labels: dict[str, int] = field(default_factory=dict)  # basic-block label -> index of its first instruction


def _meta(key: str) -> Callable[[KernelAsm], int | None]:
    return lambda k: _int(k.meta.get(key))


def _count(test: Callable[[Instruction], bool]) -> Callable[[KernelAsm], int]:
    return lambda k: sum(1 for i in k.body if test(i))


def _is_spill(i: Instruction) -> bool:
    return "Folded Spill" in i.comment or "Folded Reload" in i.comment


def _loop_spills(k: KernelAsm) -> int:
    """Spill code inside a loop: between a branch back to an earlier label and that label."""
    spans = [(k.labels[target], at) for at, i in enumerate(k.body)
             if i.mnemonic.startswith(("s_cbranch", "s_branch")) and (target := i.operands.split(",")[0].strip())
             in k.labels and k.labels[target] <= at]
    return sum(1 for at, i in enumerate(k.body) if _is_spill(i) and any(a <= at <= b for a, b in spans))


def _arch_vgprs(k: KernelAsm) -> int | None:
    # Symbolic with indirect calls; then the metadata total equals it when no AGPRs are used.
    n = _int(k.info.get("NumVgprs"))
    if n is None and _int(k.meta.get("agpr_count")) == 0:
        n = _int(k.meta.get("vgpr_count"))
    return n


@dataclass(frozen=True)
class Metric:
    name: str
    label: str  # row title in the human table
    description: str
    compute: Callable[[KernelAsm], int | None]  # None: not determinable from this asm


METRICS: tuple[Metric, ...] = (
    Metric("scratch_ops", "scratch ops", "scratch_* memory instructions (spills and private arrays)",
           _count(lambda i: i.mnemonic.startswith("scratch_"))),
    Metric("spill_ops", "spill ops", "instructions commented 'Folded Spill' or 'Folded Reload' "
           "(register-allocator spill code)", _count(_is_spill)),
    Metric("loop_spill_ops", "spill ops in loops", "spill ops inside a loop: after a basic-block label that a "
           "later branch of the kernel body jumps back to, and not after that branch", _loop_spills),
    Metric("mfma", "v_mfma", "v_mfma* instructions", _count(lambda i: i.mnemonic.startswith("v_mfma"))),
    Metric("vmcnt0", "vmcnt(0)", "s_waitcnt whose operands include vmcnt(0) (full memory waits)",
           _count(lambda i: i.mnemonic == "s_waitcnt" and "vmcnt(0)" in i.operands)),
    Metric("vgpr", "VGPRs", "architectural VGPRs ('; NumVgprs'), the 256 ceiling", _arch_vgprs),
    Metric("agpr", "AGPRs", "accumulation VGPRs (metadata .agpr_count)", _meta("agpr_count")),
    Metric("vgpr_total", "VGPRs+AGPRs", "unified VGPR file allocation (metadata .vgpr_count)",
           _meta("vgpr_count")),
    Metric("sgpr", "SGPRs", "SGPRs incl. VCC/flat-scratch (metadata .sgpr_count)", _meta("sgpr_count")),
    Metric("scratch_size", "ScratchSize", "bytes of scratch per lane (.private_segment_fixed_size)",
           _meta("private_segment_fixed_size")),
    Metric("vgpr_spills", "vgpr spills", "VGPRs spilled (metadata .vgpr_spill_count)",
           _meta("vgpr_spill_count")),
    Metric("sgpr_spills", "sgpr spills", "SGPRs spilled (metadata .sgpr_spill_count)",
           _meta("sgpr_spill_count")),
    Metric("instructions", "instructions", "instructions in the kernel body", lambda k: len(k.body)),
    Metric("occupancy", "occupancy", "waves per SIMD ('; Occupancy'); None when symbolic",
           lambda k: _int(k.info.get("Occupancy"))),
)
METRIC_NAMES = frozenset(m.name for m in METRICS)

Metrics = dict[str, int | None]


def analyse(asm_texts: Iterable[str]) -> dict[str, Metrics]:
    """{mangled kernel name: {metric: value}} over all asm files of one build (LTO partitions)."""
    out: dict[str, Metrics] = {}
    for text in asm_texts:
        for k in parse_kernels(text):
            out[k.name] = {m.name: m.compute(k) for m in METRICS}
    return out


def code(asm_texts: Iterable[str]) -> dict[str, tuple[Instruction, ...]]:
    """{mangled kernel name: its instructions} over all asm files of one build."""
    return {k.name: k.body for text in asm_texts for k in parse_kernels(text)}


@dataclass(frozen=True)
class Summary:
    """What a verdict reads of one build's assembly: every kernel's figures, and a digest of its
    instructions. Small, and plain JSON: the IR memo (interestingness/ir_memo.py) keeps it
    instead of the assembly."""

    metrics: dict[str, Metrics]
    digests: dict[str, list]  # {kernel: [sha256 of its instructions, how many]}

    def to_json(self) -> dict:
        return {"metrics": self.metrics, "digests": self.digests}

    @classmethod
    def from_json(cls, data: dict) -> Summary:
        return cls(data["metrics"], data["digests"])


def summarise(asm_texts: Iterable[str]) -> Summary:
    """`analyse` and the digest of every kernel's `code`, from one parse."""
    metrics: dict[str, Metrics] = {}
    digests: dict[str, list] = {}
    for text in asm_texts:
        for k in parse_kernels(text):
            metrics[k.name] = {m.name: m.compute(k) for m in METRICS}
            digests[k.name] = [instructions_sha256(k.body), len(k.body)]
    return Summary(metrics, digests)


def instructions_sha256(body: tuple[Instruction, ...]) -> str:
    return hashlib.sha256(repr(body).encode()).hexdigest()


_LABEL = re.compile(r'^"?([^\s":;]+)"?:')
_FUNC_END = re.compile(r"^\.Lfunc_end\d+:")
_META_KEY = re.compile(r"^  ( |-) \.([\w]+):\s*(.*)$")  # kernel-level keys; args sit deeper
_INFO = re.compile(r"^; ([\w:. ]+?)\s*:\s*(.*)$")


def parse_kernels(text: str) -> list[KernelAsm]:
    """Kernels of one asm file: those listed in its metadata block."""
    lines = text.splitlines()
    meta = _metadata(lines)
    bodies: dict[str, list[Instruction]] = {}
    labels: dict[str, dict[str, int]] = {}
    infos: dict[str, dict[str, str]] = {}
    current = last = None  # kernel whose body / whose trailing comments we are in
    in_info = False
    for line in lines:
        if current is not None:
            if _FUNC_END.match(line):
                current = None
            elif (ins := _instruction(line)) is not None:
                bodies[current].append(ins)
            elif m := _LABEL.match(line):
                labels[current][m.group(1)] = len(bodies[current])
            continue
        m = _LABEL.match(line)
        if m and m.group(1) in meta:
            current = last = m.group(1)
            bodies[current], labels[current], in_info = [], {}, False
        elif line.startswith("; Kernel info:") and last is not None:
            infos[last], in_info = {}, True
        elif in_info and line.startswith(";"):
            if mi := _INFO.match(line):
                infos[last][mi.group(1)] = mi.group(2).strip()
        else:
            in_info = False
    return [KernelAsm(n, meta[n], infos.get(n, {}), tuple(bodies.get(n, ())), labels.get(n, {})) for n in meta]


def _metadata(lines: list[str]) -> dict[str, dict[str, str]]:
    kernels: list[dict[str, str]] = []
    inside = False
    for line in lines:
        s = line.strip()
        if s == ".amdgpu_metadata":
            inside = True
        elif s == ".end_amdgpu_metadata":
            inside = False
        elif inside and (m := _META_KEY.match(line)):
            if m.group(1) == "-":
                kernels.append({})
            kernels[-1][m.group(2)] = m.group(3).strip().strip("'\"")
    return {k["name"]: k for k in kernels if "name" in k}


def _instruction(line: str) -> Instruction | None:
    code, _, comment = line.partition(";")
    code = code.strip()
    if not code or code.startswith(".") or code.endswith(":"):
        return None  # blank, comment, directive or label
    mnemonic, *operands = code.split(None, 1)
    return Instruction(mnemonic, operands[0] if operands else "", comment)


def _int(v: str | None) -> int | None:
    try:
        return int(v, 0) if v is not None else None
    except ValueError:
        return None


def demangle(names: Iterable[str], toolchain: Toolchain) -> dict[str, str]:
    names = list(names)
    if not names:
        return {}
    res = run([toolchain.cxxfilt], cwd=Path("/"), timeout=60, stdin="\n".join(names).encode())
    out = res.stdout.splitlines()
    if res.returncode != 0 or len(out) != len(names):
        return {n: n for n in names}
    return dict(zip(names, out))
