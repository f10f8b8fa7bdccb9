"""The backend options that recover the spill: `reduce explain`'s knob table and its runner.

The ablation says which passes make the difference; a backend engineer triaging the report asks
next which setting of the scheduler or the register allocator makes the spill go away (the
issue's reviewers: "try `-Xoffload-linker -mllvm=-amdgpu-sched-strategy=max-ilp`"). Each knob of
the table is built alone on the spilling side, in the stage where a backend option takes effect
(lld's LTO codegen under full offload LTO, the device cc1 without LTO, llc for IR), the other side
as built, and judged by the oracle's own predicate: a knob that loses it with the MFMA count kept
recovers the case, and removes the spill when no VGPR spills and no spill code is left.

The table is data (knobs.toml beside this module), so a user adds a knob without code (`reduce
explain --knobs FILE`). An option the toolchain does not list (its `--help-hidden`) is reported
unavailable rather than built: LLVM would stop on it, or ignore it silently for a string value.
"""
from __future__ import annotations

import dataclasses
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from interestingness.measure.metrics import Metrics

KNOB_TABLE = Path(__file__).with_name("knobs.toml")
# what a knob's build did (KnobTry.outcome), in the order they are listed
KNOB_OUTCOMES = ("removes", "recovers", "lost-mfma", "better", "worse", "same", "error", "unavailable", "not built")
KNOB_FIGURES = ("vgpr_spills", "spill_ops", "scratch_size", "vgpr", "agpr", "mfma", "occupancy")


class KnobError(ValueError):
    """A knob file that cannot be read or is not a knob table."""


@dataclass(frozen=True)
class Knob:
    name: str
    options: tuple[str, ...]  # LLVM options as llc spells them: "-amdgpu-sched-strategy=max-ilp"
    about: str = ""


def option_names(help_text: str) -> frozenset[str]:
    """The option names a `--help-hidden` lists, without dashes or values."""
    return frozenset(re.findall(r"^\s+--?([\w.-]+)", help_text, re.M))


def option_name(option: str) -> str:
    """"-amdgpu-sched-strategy=max-ilp" -> "amdgpu-sched-strategy"."""
    return option.lstrip("-").split("=", 1)[0]


def load_knobs(path: str | Path) -> list[Knob]:
    """The knobs of one TOML file: `[[knob]]` tables with `name`, `options` (a list of strings)
    and an optional `about`."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise KnobError(f"{path}: {e}") from None
    entries = data.get("knob", [])
    if not isinstance(entries, list) or not entries:
        raise KnobError(f"{path}: no [[knob]] table")
    knobs = []
    for i, entry in enumerate(entries):
        name, options, about = (entry.get(k) for k in ("name", "options", "about")) if isinstance(entry, dict) \
            else (None, None, None)
        about = "" if about is None else about
        if not isinstance(name, str) or not name or not isinstance(about, str) or not isinstance(options, list) \
                or not options or not all(isinstance(o, str) and o.startswith("-") for o in options):
            raise KnobError(f"{path}: knob {i + 1}: wants a name, a list of options (each starting with '-') "
                            f"and optionally an about string; got {entry!r}")
        knobs.append(Knob(name, tuple(options), about))
    return knobs


def knob_table(extra: Iterable[str | Path] = ()) -> list[Knob]:
    """The shipped table, then each extra file's knobs: a knob of a name already there replaces
    it in place, a new one goes at the end."""
    table = {k.name: k for k in load_knobs(KNOB_TABLE)}
    for path in extra:
        table.update((k.name, k) for k in load_knobs(path))
    return list(table.values())


@dataclass
class KnobTry:
    """One knob built on the spilling side: the target kernel's figures and the predicate."""

    name: str
    options: list[str]  # as the table gives them
    placed: list[str]  # as they are passed in the stage: ["-Xoffload-linker", "-mllvm=-amdgpu-..."]
    about: str
    stage: str
    figures: Metrics | None
    holds: bool | None  # the predicate, the other side as built
    reason: str  # why it does not hold
    outcome: str  # one of KNOB_OUTCOMES
    command: str  # the build, by hand
    seconds: float = 0.0
    failure: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class OutOfTime(Exception):
    """A build not started: the explanation's time bound has passed (a Runner's deadline)."""


class Runner(Protocol):
    """What try_knobs uses of explain's engine (ablation.Explainer)."""

    b: Any  # the side's builds: options(stage, opts), by_hand(stage, opts), side(stage)

    def map(self, fn: Callable, items: Sequence, phase: str) -> list: ...

    def build(self, stage: str, opts: Sequence[str]) -> Any: ...  # raises OutOfTime past the deadline

    def verdict(self, stage: str, figures: Metrics | None,
                base: dict[str, Metrics | None]) -> tuple[bool | None, str]: ...


def try_knobs(ex: Runner, stage: str, knobs: Sequence[Knob], base: dict[str, Metrics | None],
              known: frozenset[str]) -> list[KnobTry]:
    """Each knob alone in `stage` (`jobs` builds at a time); `known`: the toolchain's options. A
    knob whose build would start past the time bound is `not built`; those built are kept."""
    side = base.get(ex.b.side(stage)) or {}

    def one(knob: Knob) -> KnobTry:
        t = KnobTry(knob.name, list(knob.options), ex.b.options(stage, knob.options), knob.about, stage, None, None,
                    "", "unavailable", ex.b.by_hand(stage, knob.options))
        missing = [o for o in knob.options if option_name(o) not in known]
        if missing:
            t.failure = f"this toolchain has no {', '.join(option_name(o) for o in missing)}"
            return t
        try:
            build = ex.build(stage, knob.options)
        except OutOfTime:
            t.outcome = "not built"
            return t
        t.seconds, t.failure, t.figures = round(build.seconds, 2), build.failure, build.figures
        if not build.ok or build.figures is None:
            t.outcome = "error"
            return t
        t.holds, t.reason = ex.verdict(stage, build.figures, base)
        t.outcome = judge(build.figures, side, t.holds)
        return t

    return ex.map(one, list(knobs), "knobs")


def judge(figures: Metrics, side: Metrics, holds: bool | None) -> str:
    """A knob's outcome from its build's figures, the side's as built and the predicate."""
    def spills(f: Metrics) -> tuple[int, int]:
        return f.get("vgpr_spills") or 0, f.get("spill_ops") or 0

    if holds is not True:
        if figures.get("mfma") != side.get("mfma"):
            return "lost-mfma"
        return "recovers" if any(spills(figures)) else "removes"
    if spills(figures) != spills(side):  # by VGPRs spilled, then by spill code
        return "worse" if spills(figures) > spills(side) else "better"
    return "same"


def render(tries: Sequence[KnobTry], side: Metrics | None, where: str, run_from: str = "") -> list[str]:
    """EXPLAIN.md's section: which knobs remove the spill (at what VGPR count), the table of all,
    and the command of each that recovers the case. `where`: the stage; `run_from`: where the
    commands run, when they do not say it themselves (a bundle's)."""
    if not tries:
        return []
    side = side or {}
    first = tries[0]
    form = shlex.join(first.placed[:len(first.placed) // len(first.options)]).replace(first.options[0], "OPT")
    out = ["## Backend options\n",
           "Each knob of the table (interestingness/tools/explain/knobs.toml, and `--knobs` files) passed alone to "
           f"{where} (as `{form}`), the other side as built.\n"]
    winners = [t for t in tries if t.outcome in ("removes", "recovers")]
    for outcome, title in (("removes", "Remove the spill"), ("recovers", "Lose the predicate, some spill left")):
        rows = [t for t in tries if t.outcome == outcome]
        if rows:
            out.append(f"{title}: " + ", ".join(
                f"**`{t.name}`** (`{shlex.join(t.placed)}`: {_get(t.figures, 'vgpr')} VGPRs, "
                f"{_get(t.figures, 'vgpr_spills')} spilled)" for t in rows) + ".\n")
    if not winners:
        out.append(f"None of the {len(tries)} knobs loses the predicate with the MFMA count kept.\n")
    out.append("| knob | options | " + " | ".join(KNOB_FIGURES) + " | predicate | outcome |")
    out.append("|---|---|" + "---:|" * len(KNOB_FIGURES) + "---|---|")
    out.append("| (as built) | | " + " | ".join(_get(side, k) for k in KNOB_FIGURES) + " | holds | |")
    for t in sorted(tries, key=lambda t: KNOB_OUTCOMES.index(t.outcome)):
        figs = t.figures or {}
        cells = [f"**{_get(figs, k)}**" if t.figures and figs.get(k) != side.get(k) else _get(figs, k)
                 for k in KNOB_FIGURES]
        pred = "-" if t.holds is None else "holds" if t.holds else "no"
        outcome = t.outcome + (f": {t.failure}" if t.failure and t.outcome in ("error", "unavailable") else
                               " (time bound)" if t.outcome == "not built" else "")
        out.append(f"| `{t.name}` | `{' '.join(t.options)}` | " + " | ".join(cells) + f" | {pred} | {outcome} |")
    out.append("")
    if winners and run_from:
        out.append(f"The commands below run {run_from}.\n")
    for t in winners:
        out.append(f"`{t.name}`" + (f" ({t.about})" if t.about else "") + f", by hand:\n\n```sh\n{t.command}\n```\n")
    return out


def _get(figures: Metrics | None, key: str) -> str:
    v = (figures or {}).get(key)
    return "-" if v is None else str(v)
