"""Per-kernel figures read from AMDGPU assembly: the one table of every metric the oracle knows.

Sources inside the asm, per kernel: the metadata YAML (`.amdgpu_metadata`, same content as the
object's NT_AMDGPU_METADATA note; always resolved numbers), the `; Kernel info:` comments (may be
symbolic expressions when the kernel makes indirect calls) and the instructions of every function
the kernel can reach: its own body (between its label and its `.Lfunc_end`) and the bodies of the
functions it calls, directly or through others (full LTO may leave a large implementation as a
call, and then its spill code is the callee's). The metadata's register and scratch figures
already cover the call graph (the backend's resource analysis takes the maximum over callees);
the counts of instructions are summed over it.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from interestingness.base.process import run


@dataclass(frozen=True)
class Instruction:
    mnemonic: str
    operands: str
    comment: str


@dataclass(frozen=True)
class FunctionAsm:
    """One function's code in one asm file."""

    name: str  # mangled
    info: dict[str, str]  # "; Kernel info:" or "; Function info:" comments
    body: tuple[Instruction, ...]
    labels: dict[str, int] = field(default_factory=dict)  # basic-block label -> index of its first instruction
    calls: tuple[str | None, ...] = ()  # each call's target symbol in order; None: indirect (a computed address)
    callees: tuple[str, ...] = ()  # the backend's resource figures' direct callees (`.set F.num_vgpr, max(...)`)


@dataclass(frozen=True)
class KernelAsm:
    """A kernel and its call graph: every function it can reach in the code object."""

    function: FunctionAsm
    meta: dict[str, str]  # metadata YAML scalars, keys without the leading dot
    reached: tuple[FunctionAsm, ...] = ()  # the functions it calls, directly or not, first reached first
    undefined: tuple[str, ...] = ()  # called symbols no asm file of the build defines
    indirect: int = 0  # calls through a computed address (their targets are not counted)

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def info(self) -> dict[str, str]:
        return self.function.info

    @property
    def body(self) -> tuple[Instruction, ...]:
        """The kernel's own instructions."""
        return self.function.body

    @property
    def labels(self) -> dict[str, int]:
        return self.function.labels

    @property
    def functions(self) -> tuple[FunctionAsm, ...]:
        """The kernel first, then each function it reaches (once each)."""
        return (self.function, *self.reached)

    @property
    def complete(self) -> bool:
        """Every call's target is counted."""
        return not self.undefined and not self.indirect


def _meta(key: str, info_key: str | None = None) -> Callable[[KernelAsm], int | None]:
    """A kernel's metadata figure; for a function alone (no metadata), its `; Function info:` one."""
    return lambda k: _int(k.meta.get(key)) if k.meta else _int(k.info.get(info_key)) if info_key else None


def _count(test: Callable[[Instruction], bool]) -> Callable[[KernelAsm], int]:
    return lambda k: sum(1 for f in k.functions for i in f.body if test(i))


def _is_spill(i: Instruction) -> bool:
    return "Folded Spill" in i.comment or "Folded Reload" in i.comment


def _loop_spills(k: KernelAsm) -> int:
    return sum(_function_loop_spills(f) for f in k.functions)


def _function_loop_spills(f: FunctionAsm) -> int:
    """Spill code inside a loop: between a branch back to an earlier label and that label."""
    spans = [(f.labels[target], at) for at, i in enumerate(f.body)
             if i.mnemonic.startswith(("s_cbranch", "s_branch")) and (target := i.operands.split(",")[0].strip())
             in f.labels and f.labels[target] <= at]
    return sum(1 for at, i in enumerate(f.body) if _is_spill(i) and any(a <= at <= b for a, b in spans))


_SPILL_BYTES = re.compile(r"(\d+)-byte Folded Spill")


def _spilled_dwords(f: FunctionAsm) -> int:
    """32-bit registers stored by a function's spill code: what the metadata's .vgpr_spill_count
    counts for a kernel (tests/test_metrics.py checks it equals it), which a function has not."""
    return sum(int(m.group(1)) // 4 for i in f.body if (m := _SPILL_BYTES.search(i.comment)))


def _vgpr_spills(k: KernelAsm) -> int | None:
    if not k.meta:
        return _spilled_dwords(k.function)
    own = _int(k.meta.get("vgpr_spill_count"))
    return None if own is None else own + sum(_spilled_dwords(f) for f in k.reached)


def _sgpr_spills(k: KernelAsm) -> int | None:
    # the assembly shows no SGPR spill of a function (they go to VGPR lanes, uncommented)
    return _int(k.meta.get("sgpr_spill_count")) if k.meta and not k.reached else None


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
    Metric("scratch_ops", "scratch ops", "scratch_* memory instructions (spills and private arrays) in the "
           "kernel's call graph", _count(lambda i: i.mnemonic.startswith("scratch_"))),
    Metric("spill_ops", "spill ops", "instructions commented 'Folded Spill' or 'Folded Reload' "
           "(register-allocator spill code) in the kernel's call graph", _count(_is_spill)),
    Metric("loop_spill_ops", "spill ops in loops", "spill ops inside a loop: after a basic-block label that a "
           "later branch of the same function jumps back to, and not after that branch", _loop_spills),
    Metric("mfma", "v_mfma", "v_mfma* instructions in the kernel's call graph",
           _count(lambda i: i.mnemonic.startswith("v_mfma"))),
    Metric("vmcnt0", "vmcnt(0)", "s_waitcnt whose operands include vmcnt(0) (full memory waits), in the "
           "kernel's call graph", _count(lambda i: i.mnemonic == "s_waitcnt" and "vmcnt(0)" in i.operands)),
    Metric("vgpr", "VGPRs", "architectural VGPRs ('; NumVgprs', over the call graph), the 256 ceiling", _arch_vgprs),
    Metric("agpr", "AGPRs", "accumulation VGPRs (metadata .agpr_count)", _meta("agpr_count", "NumAgprs")),
    Metric("vgpr_total", "VGPRs+AGPRs", "unified VGPR file allocation (metadata .vgpr_count)",
           _meta("vgpr_count", "TotalNumVgprs")),
    Metric("sgpr", "SGPRs", "SGPRs incl. VCC/flat-scratch (metadata .sgpr_count)",
           _meta("sgpr_count", "TotalNumSgprs")),
    Metric("scratch_size", "ScratchSize", "bytes of scratch per lane (.private_segment_fixed_size: the kernel's "
           "and its deepest callee chain's)", _meta("private_segment_fixed_size", "ScratchSize")),
    Metric("vgpr_spills", "vgpr spills", "VGPRs spilled (metadata .vgpr_spill_count, the kernel's own) plus the "
           "32-bit registers each function it calls stores as 'Folded Spill'", _vgpr_spills),
    Metric("sgpr_spills", "sgpr spills", "SGPRs spilled (metadata .sgpr_spill_count); None when the kernel calls "
           "functions (theirs are not in the assembly)", _sgpr_spills),
    Metric("instructions", "instructions", "instructions in the kernel's call graph",
           lambda k: sum(len(f.body) for f in k.functions)),
    Metric("calls", "calls", "calls left in the kernel's call graph (s_swappc_b64, s_call_b64, tail calls; "
           "0 when everything is inlined)", lambda k: sum(len(f.calls) for f in k.functions)),
    Metric("occupancy", "occupancy", "waves per SIMD ('; Occupancy'); None when symbolic",
           lambda k: _int(k.info.get("Occupancy"))),
    Metric("max_flat_workgroup_size", "max workgroup", "the launch bound: most work-items per workgroup "
           "(metadata .max_flat_workgroup_size; __launch_bounds__, amdgpu-flat-work-group-size)",
           _meta("max_flat_workgroup_size")),
)
METRIC_NAMES = frozenset(m.name for m in METRICS)

Metrics = dict[str, int | None]


def figures(k: KernelAsm) -> Metrics:
    return {m.name: m.compute(k) for m in METRICS}


def analyse(asm_texts: Iterable[str]) -> dict[str, Metrics]:
    """{mangled kernel name: {metric: value}} over all asm files of one build (LTO partitions)."""
    return {k.name: figures(k) for k in call_graphs(asm_texts)}


def function_figures(k: KernelAsm) -> list[tuple[str, Metrics]]:
    """[(name, figures)] of each function of the kernel's call graph alone, the kernel first (its
    own body, its metadata): what `reduce check` shows beside the kernel's figures."""
    return [(f.name, figures(KernelAsm(f, k.meta if f is k.function else {}))) for f in k.functions]


@dataclass(frozen=True)
class Summary:
    """What a verdict reads of one build's assembly: every kernel's figures, and a digest of its
    instructions. Small, and plain JSON: the IR memo (interestingness/compiler/ir_memo.py) keeps it
    instead of the assembly."""

    metrics: dict[str, Metrics]
    digests: dict[str, list]  # {kernel: [sha256 of its call graph's instructions, how many]}

    def to_json(self) -> dict:
        return {"metrics": self.metrics, "digests": self.digests}

    @classmethod
    def from_json(cls, data: dict) -> Summary:
        return cls(data["metrics"], data["digests"])


def summarise(asm_texts: Iterable[str]) -> Summary:
    """`analyse` and the digest of every kernel's call graph's code, from one parse."""
    metrics: dict[str, Metrics] = {}
    digests: dict[str, list] = {}
    for k in call_graphs(asm_texts):
        metrics[k.name] = figures(k)
        digests[k.name] = [instructions_sha256(k), sum(len(f.body) for f in k.functions)]
    return Summary(metrics, digests)


def instructions_sha256(k: KernelAsm) -> str:
    """Of the kernel's instructions and those of each function it reaches, in order."""
    return hashlib.sha256(repr(tuple(f.body for f in k.functions)).encode()).hexdigest()


_LABEL = re.compile(r'^"?([^\s":;]+)"?:')
_FUNC_END = re.compile(r"^\.Lfunc_end\d+:")
_META_KEY = re.compile(r"^  ( |-) \.([\w]+):\s*(.*)$")  # kernel-level keys; args sit deeper
_INFO = re.compile(r"^; ([\w:. ]+?)\s*:\s*(.*)$")
_FUNCTION_TYPE = re.compile(r'^\s*\.type\s+"?([^\s",]+)"?\s*,\s*@function')
_GLOBAL = re.compile(r'^\s*\.(?:globl|weak)\s+"?([^\s"]+)"?')
# the backend's resource figures of a function: `.set F.num_vgpr, max(41, .Lcallee.num_vgpr, ...)`
_RESOURCES = re.compile(r'^\s*\.set\s+"?([^\s",]+?)"?\.num_vgpr\s*,\s*(.*)$')
_RESOURCE_OF = re.compile(r'([^\s,()"]+)\.num_vgpr\b')


@dataclass(frozen=True)
class _AsmFile:
    meta: dict[str, dict[str, str]]  # kernels
    functions: dict[str, FunctionAsm]
    globals: frozenset[str]


def call_graphs(asm_texts: Iterable[str]) -> list[KernelAsm]:
    """The kernels of one build's asm files (those listed in their metadata), each with its call
    graph. A call resolves to the function of that name in the caller's file, else to a global
    one of another file (an LTO partition); otherwise its target is undefined in the build."""
    files = [_parse(text) for text in asm_texts]
    everywhere = {n: f for file in files for n, f in file.functions.items() if n in file.globals}
    return [_call_graph(file.functions[name], meta, _resolver(file, everywhere))
            for file in files for name, meta in file.meta.items() if name in file.functions]


def _resolver(file: _AsmFile, everywhere: dict[str, FunctionAsm]) -> Callable[[str], FunctionAsm | None]:
    def resolve(name: str) -> FunctionAsm | None:
        for n in (name, name[2:] if name.startswith(".L") else None):  # a local function's resource symbol
            if n is not None and (f := file.functions.get(n) or everywhere.get(n)) is not None:
                return f
        return None

    return resolve


def _call_graph(kernel: FunctionAsm, meta: dict[str, str],
                resolve: Callable[[str], FunctionAsm | None]) -> KernelAsm:
    reached: dict[int, FunctionAsm] = {id(kernel): kernel}
    undefined: dict[str, None] = {}
    queue = [kernel]
    while queue:
        f = queue.pop(0)
        for target in dict.fromkeys([*(c for c in f.calls if c is not None), *f.callees]):
            callee = resolve(target)
            if callee is None:
                undefined[target] = None
            elif id(callee) not in reached:
                reached[id(callee)] = callee
                queue.append(callee)
    functions = list(reached.values())
    return KernelAsm(kernel, meta, tuple(functions[1:]), tuple(undefined),
                     sum(c is None for f in functions for c in f.calls))


def parse_kernels(text: str) -> list[KernelAsm]:
    """The kernels of one asm file, with their call graphs within it."""
    return call_graphs([text])


def _parse(text: str) -> _AsmFile:
    lines = text.splitlines()
    meta = _metadata(lines)
    typed: set[str] = set()
    global_names: set[str] = set()
    bodies: dict[str, list[Instruction]] = {}
    labels: dict[str, dict[str, int]] = {}
    infos: dict[str, dict[str, str]] = {}
    callees: dict[str, list[str]] = {}
    current = last = None  # function whose body / whose trailing comments we are in
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
        if m := _FUNCTION_TYPE.match(line):
            typed.add(m.group(1))
        elif m := _GLOBAL.match(line):
            global_names.add(m.group(1))
        elif m := _RESOURCES.match(line):
            callees.setdefault(m.group(1), []).extend(_RESOURCE_OF.findall(m.group(2)))
        m = _LABEL.match(line)
        if m and (m.group(1) in typed or m.group(1) in meta):
            current = last = m.group(1)
            bodies[current], labels[current], in_info = [], {}, False
        elif line.startswith(("; Kernel info:", "; Function info:")) and last is not None:
            infos[last], in_info = {}, True
        elif in_info and last is not None and line.startswith(";"):  # (in_info: there is a last)
            if mi := _INFO.match(line):
                infos[last][mi.group(1)] = mi.group(2).strip()
        else:
            in_info = False
    functions = {}
    for n, body in bodies.items():
        own = callees.get(n, []) + callees.get(".L" + n, [])
        functions[n] = FunctionAsm(n, infos.get(n, {}), tuple(body), labels[n], _calls(body), tuple(dict.fromkeys(own)))
    return _AsmFile(meta, functions, frozenset(global_names))


# A symbol's address into a register: `s_add_u32 s0, s0, f@rel32@lo+4` (then s_addc_u32 ...@hi),
# or its GOT entry's (`@gotpcrel32@lo`, then s_load_dwordx2 of the address from there).
_ADDRESS = re.compile(r'"?([^\s,"@]+)"?@(rel32|gotpcrel32|abs32)@lo\b')
_SREG = re.compile(r"^s(?:\[(\d+):(\d+)\]|(\d+))$")


def _sregs(operand: str) -> range:
    m = _SREG.match(operand.strip())
    if m is None:
        return range(0)
    low = int(m.group(1) or m.group(3))
    return range(low, int(m.group(2) or low) + 1)


def _calls(body: Sequence[Instruction]) -> tuple[str | None, ...]:
    """Each call's target in order (None: an address computed otherwise, an indirect call), read
    by following which SGPRs hold a symbol's address: s_swappc_b64 and s_call_b64 calls, and
    s_setpc_b64 to a symbol (a tail call; to anything else it is a return)."""
    held: dict[int, tuple[str, bool]] = {}  # SGPR -> (symbol, whether it holds the GOT entry's address)
    out: list[str | None] = []
    for i in body:
        ops = [o.strip() for o in i.operands.split(",")] if i.operands else []
        if i.mnemonic == "s_call_b64" and len(ops) > 1:
            m = _ADDRESS.match(ops[1]) or re.match(r'"?([^\s,"@+]+)', ops[1])
            out.append(m.group(1) if m else None)
            continue
        if i.mnemonic == "s_swappc_b64" and len(ops) > 1:
            target = held.get(_sregs(ops[1]).start)
            out.append(target[0] if target and not target[1] else None)
            continue  # registers still read after a call are ones it preserves: a second call may reuse them
        if i.mnemonic == "s_setpc_b64" and ops:
            target = held.get(_sregs(ops[0]).start)
            if target and not target[1]:
                out.append(target[0])
            continue
        dest = _sregs(ops[0]) if ops else range(0)
        if not dest:
            continue
        source = _sregs(ops[1]) if len(ops) > 1 else range(0)
        if m := _ADDRESS.search(i.operands):
            held[dest.start] = (m.group(1), m.group(2) == "gotpcrel32")
        elif "@hi" in i.operands:
            pass  # the high half of an address whose low half is held
        elif i.mnemonic.startswith("s_load_dwordx2") and source and held.get(source.start, ("", False))[1]:
            held[dest.start] = (held[source.start][0], False)  # the address, read from the GOT
        elif i.mnemonic.startswith("s_mov_b") and source and source.start in held:
            held[dest.start] = held[source.start]
        else:
            for r in dest:
                held.pop(r, None)
    return tuple(out)


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


class Demangler(Protocol):
    """A toolchain with a c++filt (Toolchain, ir.LlvmTools)."""

    @property
    def cxxfilt(self) -> str: ...


def demangle(names: Iterable[str], toolchain: Demangler) -> dict[str, str]:
    names = list(names)
    if not names:
        return {}
    res = run([toolchain.cxxfilt], cwd=Path("/"), timeout=60, stdin="\n".join(names).encode())
    out = res.stdout.splitlines()
    if res.returncode != 0 or len(out) != len(names):
        return {n: n for n in names}
    return dict(zip(names, out))
