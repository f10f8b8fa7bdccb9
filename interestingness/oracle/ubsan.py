"""The UB guard's sanitizer checks: what clang's undefined-behaviour sanitizer, in trap mode, and
the optimiser say of a kernel, so that a reduction keeps no undefined behaviour the original did
not have.

The device compile takes `-fsanitize=...` at cc1 level only (the driver drops it for amdgcn), so
the checks are given with `-Xclang`, in trap mode: each failing check becomes a call of
`llvm.ubsantrap(KIND)` (KIND: clang's SanitizerHandler, `KINDS`). The no-LTO side is built to
optimised IR (front end and -O3, no codegen): the optimiser deletes every check it proves passes,
keeps the ones it cannot decide, and turns a path on which a check must fail into the trap alone.
A kernel in which every path traps has no `ret` left.

What a kernel's `Profile` holds, and `violation` compares with the original's:
- `returns`: whether a `ret` is left in the kernel. None left where the original has one: every
  run has undefined behaviour (the README's first case's result wrote 16 elements into a row of
  3: its kernel became `ubsantrap(18); unreachable`).
- `traps`: trap calls per kind, in the kernel and the functions it calls. A kind the original's
  kernel has none of: the candidate may do something the original never could (an index the
  optimiser can no longer prove in bounds, a shift or division it cannot prove defined).
- `constant_addresses`: loads, stores, atomics and memset/memcpy/memmove through a null or
  constant address (`ptr null`, `inttoptr`, and GEPs and casts of them). The null check does not
  see an atomic through null (`atomicAdd(0, x)` is an `atomicrmw` on `ptr null`, no check), and
  the optimiser already turned `o[i]` with `o = 0` into `store poison`; the IR shows both.

Measured (notes/oracle.md): the checks cost next to nothing beyond the build itself (0.3-1 s of CPU
on the corpus cases, about two thirds of an LTO build); `alignment` and `pointer-overflow` are
left out (conditional checks on every private array's flat address, kind 22 shared with `null`,
up to twice the IR), as are `object-size` (kind 22, slower, and `array-bounds` sees the same
stores) and `signed-integer-overflow` (a conditional check on every runtime index computation).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# -fsanitize= checks that work on device code in trap mode and are worth their cost (module doc).
# At cc1 level `shift` must be spelled as its two halves.
CHECKS = ("array-bounds", "null", "integer-divide-by-zero", "shift-base", "shift-exponent", "bool", "enum",
          "unreachable", "return", "vla-bound", "builtin")

# llvm.ubsantrap's argument: clang's SanitizerHandler, for the checks above (22 is TypeMismatch, which
# null shares with alignment and object-size; 3 DivremOverflow; 10 LoadInvalidValue, bool and enum)
KINDS = {1: "__builtin_unreachable reached", 3: "division by zero", 8: "invalid builtin argument",
         10: "invalid bool or enum value loaded", 11: "end of a value-returning function reached",
         18: "array index out of bounds", 20: "shift out of range", 22: "null pointer use",
         24: "non-positive VLA bound"}


def flags(checks: tuple[str, ...] = CHECKS) -> list[str]:
    """The cc1 flags of the sanitized build."""
    joined = ",".join(checks)
    return ["-Xclang", f"-fsanitize={joined}", "-Xclang", f"-fsanitize-trap={joined}"]


def kind_name(kind: int) -> str:
    return f"{KINDS.get(kind, 'check')} (ubsantrap {kind})"


@dataclass(frozen=True)
class Profile:
    """What the sanitized, optimised IR says of one kernel (module doc)."""

    returns: bool
    traps: dict[int, int] = field(default_factory=dict)  # ubsantrap kind -> calls
    constant_addresses: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"returns": self.returns, "traps": {str(k): v for k, v in sorted(self.traps.items())},
                "constant_addresses": self.constant_addresses}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Profile:
        return cls(bool(data["returns"]), {int(k): int(v) for k, v in data.get("traps", {}).items()},
                   int(data.get("constant_addresses", 0)))

    def describe(self) -> str:
        traps = ", ".join(f"{n} x {kind_name(k)}" for k, n in sorted(self.traps.items())) or "no trap"
        return (f"{traps}; {'returns' if self.returns else 'no path returns'}; "
                f"{self.constant_addresses} access(es) through a null or constant address")


def violation(original: Profile, candidate: Profile | None) -> str:
    """Why `candidate` has undefined behaviour its original (`original`, the same kernel's) has
    not; "" when it has none the original lacks."""
    if candidate is None:
        return "the kernel is missing from the sanitized build"
    if original.returns and not candidate.returns:
        kinds = ", ".join(kind_name(k) for k in sorted(candidate.traps)) or "no check: the optimiser removed it"
        return f"every path has undefined behaviour (the sanitized kernel traps on every path: {kinds})"
    new = [k for k in sorted(candidate.traps) if k not in original.traps]
    if new:
        return ("a sanitizer check the original's kernel does not need: " + ", ".join(
            f"{candidate.traps[k]} x {kind_name(k)}" for k in new))
    if candidate.constant_addresses > original.constant_addresses:
        return (f"accesses memory through a null or constant address ({candidate.constant_addresses} load(s), "
                f"store(s) or atomic(s), the original has {original.constant_addresses})")
    return ""


_DEFINE = re.compile(r'^define\b[^@]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(', re.M)
_CALL = re.compile(r'\bcall\b[^@]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')
_TRAP = re.compile(r"@llvm\.ubsantrap\(i8 (?:immarg )?(-?\d+)\)")
_RET = re.compile(r"^\s+ret\b", re.M)
_DEF = re.compile(r"^\s*(%[-\w.$]+|%\"[^\"]*\") = (.*)$")
_PTR = re.compile(r"\bptr(?: addrspace\(\d+\))? ")
_MEM_INTRINSIC = re.compile(r"@llvm\.mem(?:set|cpy|move)(?:\.inline)?\.")


def profiles(ir: str) -> dict[str, Profile]:
    """{kernel (mangled name): Profile} for every kernel (`amdgpu_kernel`) the module defines."""
    bodies: dict[str, tuple[str, str]] = {}  # name -> (define line, body)
    for m in _DEFINE.finditer(ir):
        end = ir.find("\n}", m.end())
        end = len(ir) if end < 0 else end
        line_end = ir.find("\n", m.start())
        bodies[m.group(1).strip('"')] = (ir[m.start():line_end], ir[line_end:end])
    out = {}
    for name, (head, body) in bodies.items():
        if "amdgpu_kernel" not in head:
            continue
        traps: dict[int, int] = {}
        constant = 0
        for fn in _reachable(name, bodies):
            for t in _TRAP.findall(bodies[fn][1]):
                traps[int(t)] = traps.get(int(t), 0) + 1
            constant += constant_addresses(bodies[fn][1])
        out[name] = Profile(bool(_RET.search(body)), traps, constant)
    return out


def _reachable(kernel: str, bodies: Mapping[str, tuple[str, str]]) -> list[str]:
    """The kernel and the functions of the module it calls, directly or not."""
    seen, todo = [kernel], [kernel]
    while todo:
        for callee in _CALL.findall(bodies[todo.pop()][1]):
            callee = callee.strip('"')
            if callee in bodies and callee not in seen:
                seen.append(callee)
                todo.append(callee)
    return seen


def constant_addresses(body: str) -> int:
    """Memory accesses of a function body whose address is null or a constant, or derived from
    one by GEPs and casts."""
    defs: dict[str, str] = {}
    for line in body.splitlines():
        m = _DEF.match(line)
        if m:
            defs[m.group(1)] = m.group(2)
    memo: dict[str, bool] = {}

    def constant(operand: str, depth: int = 0) -> bool:
        operand = operand.strip()
        if operand.startswith("%"):
            if operand not in memo:
                memo[operand] = False  # cycles (phis) are not constant
                memo[operand] = depth < 64 and _derived_constant(defs.get(operand, ""),
                                                                 lambda o: constant(o, depth + 1))
            return memo[operand]
        return "@" not in operand and ("null" in operand or "inttoptr" in operand)

    count = 0
    for line in body.splitlines():
        code = line.split(";", 1)[0].strip()
        pointer = _accessed(code)
        if pointer is not None and constant(pointer):
            count += 1
    return count


def _derived_constant(definition: str, constant) -> bool:
    """Whether a value defined by `definition` (the text after `%x = `) is a constant address:
    a GEP of one, a cast of one, or an integer constant turned into a pointer."""
    op = definition.split(" ", 1)[0]
    if op == "getelementptr":
        m = _PTR.search(definition)
        return m is not None and constant(_operand(definition, m.end()))
    if op in ("addrspacecast", "bitcast"):
        m = _PTR.search(definition)
        return m is not None and constant(_operand(definition, m.end()).split(" to ", 1)[0])
    if op == "inttoptr":
        value = definition.split(" ", 2)[2].split(" to ", 1)[0] if definition.count(" ") >= 2 else ""
        return bool(re.fullmatch(r"-?\d+", value.strip()))
    return False


def _accessed(code: str) -> str | None:
    """The address operand of a load, store, atomic or memory intrinsic, else None."""
    rhs = code.split(" = ", 1)[1] if re.match(r"^%[-\w.$\"]+ = ", code) else code
    word = rhs.split(" ", 1)[0]
    if word in ("load", "atomicrmw", "cmpxchg"):
        m = _PTR.search(rhs)
    elif word == "store":
        ms = [m for m in _PTR.finditer(rhs) if rhs[:m.start()].rstrip().endswith(",")]
        m = ms[-1] if ms else None
    elif "call" in rhs.split("(", 1)[0] and _MEM_INTRINSIC.search(rhs):
        m = _PTR.search(rhs, rhs.index("("))
    else:
        return None
    return _operand(rhs, m.end()) if m is not None else None


def _operand(text: str, start: int) -> str:
    """The operand starting at `start`, up to the next comma outside parentheses and brackets."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([<{":
            depth += 1
        elif c in ")]>}":
            if depth == 0:
                return text[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return text[start:i]
    return text[start:]
