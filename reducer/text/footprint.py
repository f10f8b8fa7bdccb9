"""The footprint of the file: which of its declarations the kept kernels reach, and which
conditions have the same constant value in every instantiation, as the compiler itself says
(issue 41).

Deleting code one declaration at a time costs a build per guess, and most guesses on library
code fail; the compiler has just instantiated the kernel and knows what it used. A clang plugin
(tools/footprint/Footprint.cpp, built by scripts/setup.sh) runs in the oracle's own device
front end, after Sema's end-of-file instantiations, and prints JSON: every declaration spelled
in the main file with its byte range and whether the kernels reach it, each reached
instantiation mapped back to the text it came from and merged over redeclarations; and every
`if`, `if constexpr` and `?:` whose condition has one value wherever it was instantiated; and
each target kernel instantiated from a template as the plain definition clang prints for it
(`Plain`, which passes/plain.py proposes).

Like the values service (values.py) this module starts no process: `ClangValues` is given the
front-end run (run/session.py builds it with the plugin's flags from `plugin_flags`) and
answers `footprint()`, remembered by candidate text and journalled like every other answer.
The footprint is a proposal: every candidate made from it goes through the oracle.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from interestingness.base.plugins import TOOLS, built
from interestingness.base.plugins import PluginMissing as PluginMissing  # what `plugin` raises

PLUGIN_SOURCE = TOOLS / "footprint" / "Footprint.cpp"
PLUGIN = TOOLS / "footprint" / "build" / "footprint.so"


def plugin() -> Path:
    """The built plugin; PluginMissing when it is missing or stale."""
    return built("footprint", PLUGIN, PLUGIN_SOURCE)


def plugin_flags(kernels: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Compiler flags that load the plugin into a front-end run, reaching from `kernels`
    (mangled or plain names; none: every kernel)."""
    flags = [f"-fplugin={plugin()}"]
    for k in kernels:
        flags += ["-Xclang", "-plugin-arg-footprint", "-Xclang", f"kernel={k}"]
    return flags


def version() -> str:
    """Part of a stored answer's key: a footprint depends on the plugin's code."""
    return "footprint/" + hashlib.sha256(PLUGIN_SOURCE.read_bytes()).hexdigest()[:12]


@dataclass(frozen=True)
class Entry:
    """A declaration (or declarations sharing text) spelled in the file: [begin, end) covers its
    template header, attributes and trailing `;`; `parent` is the index of the class entry it is
    a member of, or -1."""

    begin: int
    end: int
    kind: str
    name: str
    parent: int
    reached: bool


@dataclass(frozen=True)
class Condition:
    """An `if`, `if constexpr` or `?:` whose condition is `value` in every instantiation of the
    code around it; the ranges of the whole statement (its `;` included), the condition and
    the two branches (`orelse` None when there is no else). `init`: it has an init-statement or
    a condition variable."""

    kind: str
    value: bool
    begin: int
    end: int
    cond: tuple[int, int]
    then: tuple[int, int] | None
    orelse: tuple[int, int] | None
    init: bool


@dataclass(frozen=True)
class Alias:
    """A `__plain_tN` alias the printed definitions of one footprint declare (`text`, `using
    __plain_t5 = ...;`), once for all of them: at offset `at`, where the first of them goes,
    inside `namespaces` (those not open there, to reopen; usually none: it stands in the
    namespaces open there, where whatever is printed later in an enclosing namespace sees it).
    Every definition naming it carries it, and two items carrying it make the same edit, which
    edits.apply keeps once. `moved`: an alias the file declares at [moved), in a plain kernel's
    printed block, which moves to the start of the block (at file scope) for a definition that
    goes inside the block before it (a callee of the kernel) to see it."""

    name: str
    at: int
    namespaces: tuple[str, ...]
    text: str
    moved: tuple[int, int] | None = None


@dataclass(frozen=True)
class Plain:
    """A target kernel instantiated from a template, as the plain definition clang printed for its
    one argument list: `text`, to stand at the end of the file inside `namespaces`, after the
    `aliases` it names; [body) is the template's body, which the candidate replaces by `;` so
    the instantiation is emitted no more while its launcher still names it."""

    kernel: str
    name: str
    body: tuple[int, int]
    namespaces: tuple[str, ...]
    text: str
    aliases: tuple[Alias, ...] = ()


@dataclass(frozen=True)
class Callee:
    """A function template's specialization that plain code (a plain kernel, a callee made
    plain before) calls, reached from the kept kernels, as the plain function clang printed
    for it under a fresh name: `text`, to stand inside `namespaces` at offset `at` (before the
    declaration around its first caller that stands at file scope or directly in the innermost
    block of the template's namespaces around the caller; `namespaces` are those not open
    there, to reopen); `uses` are the references to rewrite, each
    [begin, end) with its replacement (`name`, qualified; a non-static member's call from its
    object to its `(`: `name(obj, `), [body) the template's body, which becomes `;`. A template
    reached with several argument lists gives one callee each, with the same `body`. `opens`:
    the edits that make public the members of the classes its body names that are not
    (`private:` -> `public:`), each [begin, end) with its replacement; two callees opening one
    class give the same edits. `aliases`: those of the footprint's aliases it names, with the
    ones they name, in the order to declare them."""

    name: str
    body: tuple[int, int]
    at: int
    namespaces: tuple[str, ...]
    uses: tuple[tuple[int, int, str], ...]
    text: str
    opens: tuple[tuple[int, int, str], ...] = ()
    aliases: tuple[Alias, ...] = ()


@dataclass(frozen=True)
class Footprint:
    kernels: tuple[str, ...]
    entries: tuple[Entry, ...]
    conditions: tuple[Condition, ...]
    plain: tuple[Plain, ...] = ()
    # explicit instantiations that make no kept kernel exist ([begin, end) of each, to its `;`):
    # the launcher of a kernel made plain, or another kernel's; the walk does not start there
    idle: tuple[tuple[int, int], ...] = ()
    callees: tuple[Callee, ...] = ()
    # the function templates plain code calls that stay templates, each (qualified name, why):
    # where the chain of plain callees stops
    kept: tuple[tuple[str, str], ...] = ()

    def unreached(self) -> list[Entry]:
        """The unreached entries not inside another unreached one, in file order."""
        return [e for e in self.entries if not e.reached and (e.parent < 0 or self.entries[e.parent].reached)]

    def discarded(self) -> list[Condition]:
        """The `if constexpr` statements that take the same branch in every instantiation."""
        return [c for c in self.conditions if c.kind == "if constexpr"]


def parse(output: str, text: bytes) -> Footprint | None:
    """The plugin's JSON for `text`; None when it reports an error (the file does not compile, no
    kernel has the name asked for) or was made for another text (a file set's other part)."""
    try:
        data = json.loads(output)
    except ValueError:
        return None
    if not isinstance(data, dict) or "error" in data or data.get("size") != len(text):
        return None
    entries = tuple(Entry(e["begin"], e["end"], e["kind"], e["name"], e["parent"], e["reached"])
                    for e in data["entries"])
    conditions = tuple(Condition(c["kind"], c["value"], c["begin"], c["end"], tuple(c["cond"]),
                                 tuple(c["then"]) if c["then"] else None, tuple(c["else"]) if c["else"] else None,
                                 c["init"])
                       for c in data["conditions"])
    aliases = {a["name"]: Alias(a["name"], a["at"], tuple(a["namespaces"]), a["text"],
                                (a["from"][0], a["from"][1]) if "from" in a else None)
               for a in data.get("aliases", ())}
    plain = tuple(Plain(p["kernel"], p["name"], (p["body"][0], p["body"][1]), tuple(p["namespaces"]), p["text"],
                        tuple(aliases[n] for n in p.get("aliases", ())))
                  for p in data.get("plain", ()))
    idle = tuple((b, e) for b, e in data.get("idle", ()))
    callees = tuple(Callee(c["name"], (c["body"][0], c["body"][1]), c["at"], tuple(c["namespaces"]),
                           tuple((b, e, t) for b, e, t in c["uses"]), c["text"],
                           tuple((b, e, t) for b, e, t in c.get("opens", ())),
                           tuple(aliases[n] for n in c.get("aliases", ())))
                    for c in data.get("callees", ()))
    spans = (*(p.body for p in plain), *idle, *(c.body for c in callees),
             *(u[:2] for c in callees for u in (*c.uses, *c.opens)), *(a.moved for a in aliases.values() if a.moved))
    if any(not 0 <= e.begin < e.end <= len(text) for e in entries) \
            or any(not 0 <= b < e <= len(text) for b, e in spans) \
            or any(not 0 <= at <= len(text) for at in (*(c.at for c in callees), *(a.at for a in aliases.values()))):
        return None
    kept = tuple((k["name"], k["why"]) for k in data.get("kept", ()))
    return Footprint(tuple(data["kernels"]), entries, conditions, plain, idle, callees, kept)  # type: ignore[arg-type]
