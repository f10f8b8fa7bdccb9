"""A kernel's register budget as its IR states it: the function attributes codegen derives the
VGPR and SGPR ceilings from.

The register allocator spills when the kernel needs more registers than its budget, and the
budget comes from the kernel's attributes, not from its code: the launch bound
(`amdgpu-flat-work-group-size`, from `__launch_bounds__`), the occupancy asked for
(`amdgpu-waves-per-eu`), explicit limits (`amdgpu-num-vgpr`, `amdgpu-num-sgpr`), how the unified
register file is split (`amdgpu-agpr-alloc`), the LDS the kernel allocates (`amdgpu-lds-size`,
which caps occupancy) and the subtarget (`target-cpu`, `target-features`). llvm-reduce's
`attributes` pass removes them like any other attribute; without `amdgpu-flat-work-group-size`
llc assumes 1024 work-items and gives the kernel 128 VGPRs, so a module that spilled at the
256 ceiling spills more at 128 and still "spills": the symptom kept, the bug lost. The IR
oracle compares these attributes with the original's before it compiles anything.

Read from the textual IR: the attribute groups (`attributes #N = { ... }`) the kernel's
`define` line refers to, and attributes written on that line itself.
"""
from __future__ import annotations

import re

BUDGET_ATTRIBUTES = (
    "amdgpu-flat-work-group-size", "amdgpu-waves-per-eu", "amdgpu-num-vgpr", "amdgpu-num-sgpr",
    "amdgpu-agpr-alloc", "amdgpu-no-agpr", "amdgpu-lds-size", "target-cpu", "target-features",
)

Budget = dict[str, str]  # attribute -> value ("" for a key-only string attribute)

_GROUP = re.compile(r"^attributes #(\d+) = \{(.*)\}\s*$", re.MULTILINE)
_STRING_ATTR = re.compile(r'"((?:[^"\\]|\\.)*)"(?:="((?:[^"\\]|\\.)*)")?')
_GROUP_REF = re.compile(r"#(\d+)\b")
_DEFINE = re.compile(r'^define [^@\n]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(', re.MULTILINE)


def budget_attributes(text: str, kernel: str) -> Budget | None:
    """The budget attributes of function `kernel` (mangled name) in a module's textual IR;
    None when the module does not define it."""
    define = next((m for m in _DEFINE.finditer(text) if m.group(1).strip('"') == kernel), None)
    if define is None:
        return None
    line_end = text.find("\n", define.end())
    tail = _after_parameters(text[define.end():line_end if line_end >= 0 else len(text)])
    groups = {m.group(1): m.group(2) for m in _GROUP.finditer(text)}
    attrs: Budget = {}
    for part in [tail, *(groups.get(n, "") for n in _GROUP_REF.findall(tail))]:
        for m in _STRING_ATTR.finditer(part):
            if m.group(1) in BUDGET_ATTRIBUTES:
                attrs[m.group(1)] = m.group(2) or ""
    return attrs


def _after_parameters(rest: str) -> str:
    """What follows a `define` line's parameter list (`rest` starts inside it): its attributes,
    section, comdat. Parentheses inside quoted names do not count."""
    depth, quoted = 1, False
    for i, c in enumerate(rest):
        if c == '"':
            quoted = not quoted
        elif not quoted and c == "(":
            depth += 1
        elif not quoted and c == ")":
            depth -= 1
            if depth == 0:
                return rest[i + 1:]
    return ""


def differences(original: Budget, candidate: Budget | None) -> list[str]:
    """What differs, as `name: original -> candidate` (`(none)` for a missing attribute)."""
    if candidate is None:
        return ["the kernel is not defined"]
    return [f"{k}: {original.get(k, '(none)')} -> {candidate.get(k, '(none)')}"
            for k in BUDGET_ATTRIBUTES if original.get(k) != candidate.get(k)]
